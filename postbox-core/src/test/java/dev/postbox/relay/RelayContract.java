package dev.postbox.relay;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.PageRequest;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay against a real database: claim, publish, record, order, leases, failures. */
public abstract class RelayContract extends DatabaseContract {

    /** Writes {@code n} events round-robin over {@code aggregates} aggregates, in batches. */
    protected void writeEvents(int n, int aggregates, String topic) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboxEvent.builder().eventNo(topic + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("MQ").topic(topic).payload("{\"seq\":" + i + "}").build());
            if (batch.size() == 1000 || i == n - 1) {
                List<OutboxEvent> chunk = List.copyOf(batch);
                inTx(c -> postbox.outbox().writeAll(c, chunk));
                batch.clear();
            }
        }
    }

    static Publisher to(Receiver receiver) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                receiver.accept(r);
                out.add(CompletableFuture.completedFuture(PublishResult.published()));
            }
            return out;
        };
    }

    static Publisher failing(Function<OutboxRecord, PublishResult> outcome, Receiver receiver) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                PublishResult result = outcome.apply(r);
                if (result.kind() == PublishResult.Kind.PUBLISHED) {
                    receiver.accept(r);
                }
                out.add(CompletableFuture.completedFuture(result));
            }
            return out;
        };
    }

    protected RelayBuilder relay(Publisher publisher, String id) {
        return postbox.relay(publisher).instanceId(id).batchSize(500).poolSize(2);
    }

    /** Runs cycles until one claims nothing; returns the cycles that claimed something. */
    protected static List<Cycle> drain(Relay relay) {
        List<Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            Cycle c = relay.runOnce();
            if (c.claimed() == 0) {
                return cycles;
            }
            cycles.add(c);
        }
        throw new AssertionError("relay did not drain");
    }

    protected long countStatus(OutboxStatus status) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    @Test
    final void publishesEveryCommittedEventOnceInAggregateOrder() throws Exception {
        writeEvents(2_000, 37, "order.event");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            List<Cycle> cycles = drain(relay);
            assertThat(cycles).allMatch(c -> c.claimed() <= 500);
        }
        assertThat(receiver.distinct()).isEqualTo(2_000);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(2_000);
        OutboxRecord one = postbox.queries().outbox().byEventNo("order.event-5").orElseThrow();
        assertThat(one.publishedTime()).isEqualTo(START);
        assertThat(one.lockedBy()).isNull();
        assertThat(one.lockUntil()).isNull();
        assertThat(one.version()).isEqualTo(1);
    }

    @Test
    final void anOrderedBatchHoldsAtMostOneEventPerAggregate() throws Exception {
        writeEvents(50, 5, "order.event");
        List<List<OutboxRecord>> batches = new ArrayList<>();
        Publisher spy = records -> {
            batches.add(List.copyOf(records));
            return to(new Receiver()).publish(records);
        };
        try (Relay relay = relay(spy, "relay-1").build()) {
            drain(relay);
        }
        assertThat(batches).hasSize(10);
        assertThat(batches).allSatisfy(b -> assertThat(b).extracting(OutboxRecord::aggregateId).doesNotHaveDuplicates());
    }

    @Test
    final void unorderedModeClaimsFullBatches() throws Exception {
        writeEvents(1_000, 2, "order.event");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").ordered(false).build()) {
            List<Cycle> cycles = drain(relay);
            assertThat(cycles).hasSize(2).allMatch(c -> c.claimed() == 500);
        }
        assertThat(receiver.distinct()).isEqualTo(1_000);
    }
}
