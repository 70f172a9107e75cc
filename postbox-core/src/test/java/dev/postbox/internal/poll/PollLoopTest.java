package dev.postbox.internal.poll;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's close for bodies whose turn blocks in a client ({@link PollLoop.Body#stop()}) and for a
 * loop closed from its own thread. Pure thread logic: no database.
 */
class PollLoopTest {

    private static final Logger log = LoggerFactory.getLogger(PollLoopTest.class);
    private static final Duration LONG = Duration.ofSeconds(30);

    private static PollLoop loop(String name) {
        return new PollLoop("test " + name, "postbox-test-" + name, 1, Duration.ofMillis(10), Duration.ofMillis(50), log);
    }

    @Test
    void closeCallsStopWhileClosingSoATurnBlockedInAClientEndsAtOnce() throws Exception {
        PollLoop loop = loop("stop");
        CountDownLatch inTurn = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        AtomicBoolean closingWhenStopped = new AtomicBoolean();
        AtomicInteger exits = new AtomicInteger();
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() throws InterruptedException {
                inTurn.countDown();
                released.await(LONG.toMillis(), TimeUnit.MILLISECONDS); // a broker poll with a long timeout
                return PollLoop.Outcome.MORE;
            }

            @Override
            public void stop() {
                closingWhenStopped.set(loop.closing());
                released.countDown();
            }

            @Override
            public void exit(Throwable died) {
                exits.incrementAndGet();
            }
        });
        assertThat(inTurn.await(5, TimeUnit.SECONDS)).isTrue();

        long start = System.nanoTime();
        assertThat(loop.close(LONG, Duration.ZERO)).as("threads still alive").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(closingWhenStopped).as("closing() was already true when stop() ran").isTrue();
        assertThat(exits).hasValue(1);
        assertThat(loop.died()).isNull();
        assertThat(loop.isRunning()).isFalse();
    }

    @Test
    void aStopThatThrowsIsLoggedAndTheLoopStillCloses() throws Exception {
        PollLoop loop = loop("bad-stop");
        CountDownLatch exited = new CountDownLatch(1);
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                return PollLoop.Outcome.NONE;
            }

            @Override
            public void stop() {
                throw new IllegalStateException("client already gone");
            }

            @Override
            public void exit(Throwable died) {
                exited.countDown();
            }
        });
        assertThat(loop.close(Duration.ofSeconds(5), Duration.ZERO)).isEmpty();
        assertThat(exited.await(1, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.died()).isNull();
    }

    @Test
    void closedFromItsOwnThreadTheLoopEndsAfterTheTurnWithoutInterruptingIt() throws Exception {
        PollLoop loop = loop("self");
        AtomicInteger turns = new AtomicInteger();
        AtomicReference<Boolean> interruptedAfterClose = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAtExit = new AtomicReference<>();
        AtomicReference<String> stoppedOn = new AtomicReference<>();
        CountDownLatch exited = new CountDownLatch(1);
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                turns.incrementAndGet();
                assertThat(loop.close(Duration.ofSeconds(5), Duration.ZERO)).isEmpty(); // e.g. a fatal client error
                interruptedAfterClose.set(Thread.currentThread().isInterrupted());
                return PollLoop.Outcome.MORE;
            }

            @Override
            public void stop() {
                stoppedOn.set(Thread.currentThread().getName());
            }

            @Override
            public void exit(Throwable died) {
                interruptedAtExit.set(Thread.currentThread().isInterrupted());
                exited.countDown();
            }
        });
        assertThat(exited.await(5, TimeUnit.SECONDS)).as("the thread ended after its turn").isTrue();
        assertThat(turns).hasValue(1);
        assertThat(stoppedOn).hasValue("postbox-test-self");
        assertThat(interruptedAfterClose).hasValue(false);
        assertThat(interruptedAtExit).hasValue(false);
        assertThat(loop.died()).isNull();
        assertThat(loop.isRunning()).isFalse();
    }

    @Test
    void closeUninterruptedReturnsAfterItsTimeoutAndLetsTheTurnFinish() throws Exception {
        PollLoop loop = loop("uninterrupted");
        CountDownLatch inTurn = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch exited = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        AtomicInteger turns = new AtomicInteger();
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                turns.incrementAndGet();
                inTurn.countDown();
                try {
                    release.await(LONG.toMillis(), TimeUnit.MILLISECONDS); // the message in hand
                    interrupted.set(false);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                return PollLoop.Outcome.MORE;
            }

            @Override
            public void exit(Throwable died) {
                exited.countDown();
            }
        });
        assertThat(inTurn.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(loop.closeUninterrupted(Duration.ofMillis(200))).as("the thread still in its turn").hasSize(1);
        assertThat(loop.isRunning()).isFalse();
        release.countDown();
        assertThat(exited.await(5, TimeUnit.SECONDS)).as("the thread ended after its turn").isTrue();
        assertThat(interrupted).hasValue(false);
        assertThat(turns).as("no turn after close").hasValue(1);
        assertThat(loop.died()).isNull();
    }

    @Test
    void closeBeforeStartIsHarmlessAndStartAfterwardsIsRefused() {
        PollLoop loop = loop("unstarted");
        assertThat(loop.close(Duration.ofSeconds(1), Duration.ZERO)).isEmpty();
        assertThat(loop.closing()).isTrue();
        AtomicBoolean made = new AtomicBoolean();
        assertThatThrownBy(() -> loop.start(i -> {
            made.set(true);
            return () -> PollLoop.Outcome.NONE;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
        assertThat(made).isFalse();
    }
}
