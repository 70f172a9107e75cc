package dev.postbox.internal.poll;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's own contract, without a database: back-off, wake-ups, containment, a close that joins. */
class PollLoopBehaviourTest {

    private static PollLoop loop(int threads, Duration min, Duration max) {
        return new PollLoop("Test job", "test-loop", threads, min, max, LoggerFactory.getLogger(PollLoopBehaviourTest.class));
    }

    @Test
    void moreRunsTheNextTurnAtOnceAndNoneBacksOffDoublingUpToTheMaximum() throws Exception {
        List<Long> starts = new CopyOnWriteArrayList<>();
        AtomicInteger turns = new AtomicInteger();
        PollLoop loop = loop(1, Duration.ofMillis(100), Duration.ofMillis(400));
        loop.start(i -> () -> {
            starts.add(System.nanoTime());
            return turns.incrementAndGet() <= 5 ? PollLoop.Outcome.MORE : PollLoop.Outcome.NONE;
        });
        awaitTrue(() -> starts.size() >= 10, Duration.ofSeconds(5));
        loop.close(Duration.ofSeconds(2), Duration.ofSeconds(1));
        // five MORE turns back to back (well under the shortest wait), then waits of 100, 200, 400, 400 ms
        for (int i = 1; i < 5; i++) {
            assertThat(gapMs(starts, i)).as("gap after MORE turn %d", i).isLessThan(80);
        }
        assertThat(gapMs(starts, 6)).as("first idle wait").isBetween(95L, 190L);
        assertThat(gapMs(starts, 7)).as("second idle wait (doubled)").isBetween(195L, 340L);
        assertThat(gapMs(starts, 8)).as("third idle wait (doubled)").isBetween(395L, 640L);
        assertThat(gapMs(starts, 9)).as("fourth idle wait (at the maximum)").isBetween(395L, 640L);
    }

    @Test
    void aWakeUpEndsTheIdleWaitAtOnce() throws Exception {
        CountDownLatch second = new CountDownLatch(2);
        PollLoop loop = loop(1, Duration.ofSeconds(30), Duration.ofSeconds(30));
        loop.start(i -> () -> {
            second.countDown();
            return PollLoop.Outcome.NONE;
        });
        Thread.sleep(100); // the first turn is done, the loop waits 30 s
        long woken = System.nanoTime();
        loop.wakeUp();
        assertThat(second.await(2, TimeUnit.SECONDS)).as("a second turn right after the wake-up").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - woken)).isLessThan(Duration.ofSeconds(1));
        loop.close(Duration.ofSeconds(2), Duration.ofSeconds(1));
    }

    @Test
    void aWakeUpForOneStartsExactlyOneIdleThread() throws Exception {
        AtomicInteger turns = new AtomicInteger();
        PollLoop loop = loop(3, Duration.ofSeconds(30), Duration.ofSeconds(30));
        loop.start(i -> () -> {
            turns.incrementAndGet();
            return PollLoop.Outcome.NONE;
        });
        awaitTrue(() -> turns.get() == 3, Duration.ofSeconds(2)); // every thread's first turn; all wait 30 s now
        Thread.sleep(100);
        loop.wakeUpOne();
        awaitTrue(() -> turns.get() >= 4, Duration.ofSeconds(2));
        Thread.sleep(300);
        assertThat(turns).as("one wake-up, one turn").hasValue(4);
        loop.wakeUpOne();
        loop.wakeUpOne();
        awaitTrue(() -> turns.get() >= 6, Duration.ofSeconds(2));
        Thread.sleep(300);
        assertThat(turns).as("two wake-ups, two turns").hasValue(6);
        loop.wakeUp();
        awaitTrue(() -> turns.get() >= 9, Duration.ofSeconds(2));
        Thread.sleep(300);
        assertThat(turns).as("a wake-up for all: every thread, once").hasValue(9);
        loop.close(Duration.ofSeconds(2), Duration.ofSeconds(1));
    }

    @Test
    void aWakeUpForOneWhileEveryThreadIsBusyStartsAnotherTurnRightAfterTheCurrentOne() throws Exception {
        CountDownLatch inTurn = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger turns = new AtomicInteger();
        PollLoop loop = loop(1, Duration.ofSeconds(30), Duration.ofSeconds(30));
        loop.start(i -> () -> {
            if (turns.incrementAndGet() == 1) {
                inTurn.countDown();
                release.await();
            }
            return PollLoop.Outcome.NONE;
        });
        assertThat(inTurn.await(2, TimeUnit.SECONDS)).isTrue();
        loop.wakeUpOne(); // nobody idle: kept for the thread that ends its turn next
        loop.wakeUpOne(); // at most one per thread is kept
        release.countDown();
        awaitTrue(() -> turns.get() >= 2, Duration.ofSeconds(2));
        Thread.sleep(300);
        assertThat(turns).as("the kept wake-up started one turn at once, not a second one").hasValue(2);
        loop.close(Duration.ofSeconds(2), Duration.ofSeconds(1));
    }

    @Test
    void aTurnThatThrowsIsContainedAndBackedOffFromAndTheLoopGoesOn() throws Exception {
        AtomicInteger turns = new AtomicInteger();
        PollLoop loop = loop(1, Duration.ofMillis(10), Duration.ofMillis(50));
        loop.start(i -> () -> {
            if (turns.incrementAndGet() % 2 == 1) {
                throw new Error("a turn failing with an Error");
            }
            return PollLoop.Outcome.MORE;
        });
        awaitTrue(() -> turns.get() >= 6, Duration.ofSeconds(5));
        assertThat(loop.isRunning()).isTrue();
        assertThat(loop.died()).isNull();
        loop.close(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertThat(loop.isRunning()).isFalse();
    }

    @Test
    void closeWaitsForTheTurnInProgressThenInterruptsItAndReturnsOnlyWhenTheThreadsAreDone() throws Exception {
        CountDownLatch inTurn = new CountDownLatch(2);
        AtomicInteger exits = new AtomicInteger();
        AtomicReference<Throwable> exitCause = new AtomicReference<>(new AssertionError("exit not called"));
        PollLoop loop = loop(2, Duration.ofMillis(10), Duration.ofMillis(10));
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() throws Exception {
                inTurn.countDown();
                Thread.sleep(60_000); // ends only when interrupted
                return PollLoop.Outcome.NONE;
            }

            @Override
            public void exit(Throwable died) {
                exitCause.set(died);
                exits.incrementAndGet();
            }
        });
        assertThat(inTurn.await(2, TimeUnit.SECONDS)).isTrue();
        assertThat(loop.isRunning()).isTrue();
        long started = System.nanoTime();
        List<Thread> alive = loop.close(Duration.ofMillis(300), Duration.ofSeconds(2));
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(alive).as("threads still alive after close").isEmpty();
        assertThat(tookMs).as("waited the shutdown timeout before interrupting").isGreaterThanOrEqualTo(290);
        assertThat(exits.get()).as("each thread's exit ran before close returned").isEqualTo(2);
        assertThat(exitCause.get()).as("closed, not died").isNull();
    }

    @Test
    void closeReportsAThreadThatIgnoresInterruptsInsteadOfWaitingForever() throws Exception {
        CountDownLatch inTurn = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        PollLoop loop = loop(1, Duration.ofMillis(10), Duration.ofMillis(10));
        loop.start(i -> () -> {
            inTurn.countDown();
            while (release.getCount() > 0) { // a turn that swallows interrupts
                try {
                    release.await();
                } catch (InterruptedException ignored) {
                    // keeps going, as a badly written publisher would
                }
            }
            return PollLoop.Outcome.NONE;
        });
        assertThat(inTurn.await(2, TimeUnit.SECONDS)).isTrue();
        List<Thread> alive = loop.close(Duration.ofMillis(100), Duration.ofMillis(200));
        assertThat(alive).extracting(Thread::getName).containsExactly("test-loop");
        release.countDown();
        alive.get(0).join(2000);
        assertThat(alive.get(0).isAlive()).isFalse();
    }

    @Test
    void aThreadKilledByWhatItCouldNotContainIsReportedAndStartingTwiceOrAfterCloseIsRefused() throws Exception {
        PollLoop loop = loop(1, Duration.ofMillis(10), Duration.ofMillis(10));
        AtomicReference<Throwable> seen = new AtomicReference<>();
        CountDownLatch exited = new CountDownLatch(1);
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                Thread.currentThread().interrupt(); // the wait that follows ends the thread: not a close
                return PollLoop.Outcome.NONE;
            }

            @Override
            public void exit(Throwable died) {
                seen.set(died);
                exited.countDown();
            }
        });
        assertThat(exited.await(2, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("not closing");
        assertThat(loop.died()).isSameAs(seen.get());
        assertThat(loop.isRunning()).isFalse();
        assertThatThrownBy(() -> loop.start(i -> () -> PollLoop.Outcome.NONE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        PollLoop closed = loop(1, Duration.ofMillis(10), Duration.ofMillis(10));
        closed.close(Duration.ofMillis(10), Duration.ofMillis(10));
        assertThatThrownBy(() -> closed.start(i -> () -> PollLoop.Outcome.NONE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
    }

    private static long gapMs(List<Long> starts, int i) {
        return (starts.get(i) - starts.get(i - 1)) / 1_000_000;
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + timeout);
            }
            Thread.sleep(5);
        }
    }
}
