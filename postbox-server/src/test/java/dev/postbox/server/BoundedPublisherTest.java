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

    @Test
    void aDestinationThatThrowsGivesEveryPermitBack() {
        Slow slow = new Slow();
        slow.fail = true;
        BoundedPublisher bounded = new BoundedPublisher("kafka", slow, 3);
        assertThatThrownBy(() -> bounded.publish(List.of(event("A"), event("B")))).hasMessage("client closed");
        assertThat(bounded.inFlight()).isZero();
    }
}
