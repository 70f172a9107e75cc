package dev.postbox.server;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A destination's in-flight bound: sends beyond it are retried at once, never queued; permits come back with outcomes. */
class BoundedPublisherTest {

    /** A destination that completes its sends only when told. */
    static final class Slow implements Publisher {
        final List<CompletableFuture<PublishResult>> pending = new ArrayList<>();
        final List<String> sent = new ArrayList<>();
        boolean fail;

        @Override
        public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
            if (fail) {
                throw new IllegalStateException("client closed");
            }
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                CompletableFuture<PublishResult> f = new CompletableFuture<>();
                pending.add(f);
                sent.add(r.eventNo());
                out.add(f);
            }
            return out;
        }
    }

    private static OutboxRecord event(String no) {
        return new OutboxRecord(1, no, "ORDER", no, "ORDER_CREATED", 1, "s", "MQ", "t", null, "{}", Map.of(),
                OutboxStatus.PUBLISHING, 0, 5, null, null, null, null, null, null, null, null, 0, Instant.EPOCH,
                Instant.EPOCH);
    }

    private static PublishResult now(CompletionStage<PublishResult> s) {
        return s.toCompletableFuture().getNow(null);
    }

    @Test
    void sendsBeyondTheBoundAreRetriedAtOnceAndPermitsReturnWithTheOutcomes() {
        Slow slow = new Slow();
        BoundedPublisher bounded = new BoundedPublisher("rabbit", slow, 2);
        List<CompletionStage<PublishResult>> first = bounded.publish(List.of(event("A"), event("B"), event("C")));
        assertThat(slow.sent).containsExactly("A", "B");
        assertThat(bounded.inFlight()).isEqualTo(2);
        assertThat(now(first.get(0))).as("still in flight").isNull();
        PublishResult c = now(first.get(2));
        assertThat(c.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(c.reason()).contains("destination 'rabbit' has 2 sends in flight (max-in-flight)");

        slow.pending.get(0).complete(PublishResult.published());
        slow.pending.get(1).completeExceptionally(new IllegalStateException("nack"));
        assertThat(bounded.inFlight()).as("a success and a failure both give their permit back").isZero();
        List<CompletionStage<PublishResult>> second = bounded.publish(List.of(event("C")));
        assertThat(slow.sent).containsExactly("A", "B", "C");
        assertThat(now(second.get(0))).isNull();
        assertThat(bounded.inFlight()).isEqualTo(1);
    }

    /**
     * Permits freed by other threads while a call takes its permits never let a later event of the call go out while an
     * earlier one was held back: what a call sends is always a prefix of it (else a later event of an aggregate would
     * overtake an earlier one, and the relay would send it again after it).
     */
    @Test
    void whatACallSendsIsAlwaysAPrefixOfItEvenWhilePermitsComeBack() throws Exception {
        java.util.concurrent.ConcurrentLinkedQueue<CompletableFuture<PublishResult>> open =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        Publisher async = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord ignored : records) {
                CompletableFuture<PublishResult> f = new CompletableFuture<>();
                open.add(f);
                out.add(f);
            }
            return out;
        };
        BoundedPublisher bounded = new BoundedPublisher("nats", async, 8);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread completer = new Thread(() -> {
            while (!stop.get()) {
                CompletableFuture<PublishResult> f = open.poll();
                if (f != null) {
                    f.complete(PublishResult.published());
                }
            }
        });
        completer.start();
        try {
            List<OutboxRecord> call = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                call.add(event("E" + i));
            }
            int partial = 0;
            for (int round = 0; round < 20_000; round++) {
                List<CompletionStage<PublishResult>> results = bounded.publish(call);
                boolean heldBack = false;
                for (int i = 0; i < results.size(); i++) {
                    PublishResult r = now(results.get(i));
                    boolean held = r != null && !r.attempted();
                    if (heldBack) {
                        assertThat(held).as("round " + round + ": event " + i + " sent after an earlier one was held back")
                                .isTrue();
                    }
                    heldBack |= held;
                }
                partial += heldBack ? 1 : 0;
            }
            assertThat(partial).as("calls that met the bound (the case under test happened)").isPositive();
        } finally {
            stop.set(true);
            completer.join();
        }
    }

    @Test
    void aDestinationThatThrowsGivesEveryPermitBack() {
        Slow slow = new Slow();
        slow.fail = true;
        BoundedPublisher bounded = new BoundedPublisher("kafka", slow, 3);
        assertThatThrownBy(() -> bounded.publish(List.of(event("A"), event("B")))).hasMessage("client closed");
        assertThat(bounded.inFlight()).isZero();
    }
}
