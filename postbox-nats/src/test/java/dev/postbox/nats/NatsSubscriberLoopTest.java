package dev.postbox.nats;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The subscriber's own loop on the polling engine: one named thread from {@link NatsSubscriber#start()}
 * to {@link NatsSubscriber#close()}, a second start refused, and an {@link Error} of the work that stops it.
 */
class NatsSubscriberLoopTest extends NatsTestBase {

    private void publishEvents(int n) throws Exception {
        writeEvents(n, 1, "order.changed", 5);
        try (NatsPublisher p = NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix(nats.prefix).build()) {
            for (int i = 0; i < n; i++) {
                PublishResult r = p.publish(List.of(postbox.queries().outbox().byEventNo(nats.id + "-" + i).orElseThrow()))
                        .get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertThat(r).isEqualTo(PublishResult.published());
            }
        }
    }

    @Test
    void startRunsOneNamedThreadThatConsumesUntilClose() throws Exception {
        publishEvents(3);
        String thread = "postbox-nats-" + nats.stream + "/loop";
        NatsSubscriber s = NatsSubscriber.builder(nats.connection, recorder("loop")).stream(nats.stream).build().start();
        try {
            assertThat(alive(thread)).isTrue();
            assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
                    .hasMessage(nats.stream + "/loop already started");
            dev.postbox.testing.Await.until("three events consumed", Duration.ofSeconds(20),
                    () -> count("SELECT COUNT(*) FROM app_received") == 3);
        } finally {
            long start = System.nanoTime();
            s.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() waits at most the pull's wait")
                    .isLessThan(Duration.ofSeconds(5));
        }
        assertThat(alive(thread)).as("the thread ended with close()").isFalse();
        assertThat(NatsSubscriber.builder(nats.connection, recorder("loop")).stream(nats.stream).build().pollOnce().fetched())
                .as("all three were acknowledged").isZero();
    }

    @Test
    @SuppressWarnings("try") // the subscriber only needs closing
    void anErrorOfTheWorkStopsTheSubscribersThread() throws Exception {
        publishEvents(1);
        AtomicInteger calls = new AtomicInteger();
        EnvelopeConsumer broken = new EnvelopeConsumer(pool, postbox.inbox(), "broken", (c, e) -> {
            calls.incrementAndGet();
            throw new NoClassDefFoundError("com/example/Missing");
        });
        String thread = "postbox-nats-" + nats.stream + "/broken";
        try (NatsSubscriber s = NatsSubscriber.builder(nats.connection, broken).stream(nats.stream).build().start()) {
            dev.postbox.testing.Await.until("the thread to end", Duration.ofSeconds(20), () -> !alive(thread));
        }
        assertThat(calls).as("no poll after the error").hasValue(1);
        assertThat(count("SELECT COUNT(*) FROM app_received")).isZero();
    }

    private long count(String sql) {
        try {
            return queryLong(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }
}
