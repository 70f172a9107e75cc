package dev.postbox.outbox;

import dev.postbox.Postbox;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The outbox write side on a real database: same transaction, idempotency, batches, concurrency. */
public abstract class OutboxWriteContract extends DatabaseContract {

    static OutboxEvent.Builder event(String eventNo) {
        return OutboxEvent.builder()
                .eventNo(eventNo)
                .aggregate("ORDER", "O-1")
                .eventType("ORDER_CREATED")
                .channel("MQ").topic("order.event").routingKey("order.created")
                .payload("{\"orderNo\":\"O-1\",\"amount\":19.90}");
    }

    /** PostgreSQL (json) and MariaDB (text) keep the payload byte for byte; H2 normalizes whitespace and number case. */
    protected boolean payloadStoredVerbatim() {
        return true;
    }

    private String outbox() {
        return postbox.tables().outbox();
    }

    @Test
    final void storesEveryFieldOfSeed000AsWritten() throws Exception {
        String payload = "{\"b\": 1, \"a\":\"ünïcode ✓\",\n \"n\":[1,2.50,{\"x\":null}], \"b2\":1e3}";
        WriteResult r = inTx(c -> postbox.outbox().write(c, OutboxEvent.builder()
                .eventNo("ORDER_CREATED:O-1").aggregate("ORDER", "O-1").eventType("ORDER_CREATED")
                .eventVersion(2).source("order-service").channel("MQ").topic("order.event")
                .routingKey("order.created").payload(payload)
                .header("tenantId", "t1").header("userId", "✓ 10001")
                .maxRetries(7).traceId("trace-1").remark("first").build()));

        assertThat(r.inserted()).isTrue();
        assertThat(r.id()).isPositive();
        OutboxRecord stored = postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1").orElseThrow();
        assertThat(stored.id()).isEqualTo(r.id());
        assertThat(stored.aggregateType()).isEqualTo("ORDER");
        assertThat(stored.aggregateId()).isEqualTo("O-1");
        assertThat(stored.eventType()).isEqualTo("ORDER_CREATED");
        assertThat(stored.eventVersion()).isEqualTo(2);
        assertThat(stored.source()).isEqualTo("order-service");
        assertThat(stored.channel()).isEqualTo("MQ");
        assertThat(stored.topic()).isEqualTo("order.event");
        assertThat(stored.routingKey()).isEqualTo("order.created");
        if (payloadStoredVerbatim()) {
            assertThat(stored.payload()).isEqualTo(payload);
        } else {
            assertThat(stored.payload().replaceAll("\\s", "")).isEqualToIgnoringCase(payload.replaceAll("\\s", ""));
        }
        assertThat(stored.headers()).containsOnly(
                org.assertj.core.api.Assertions.entry("tenantId", "t1"),
                org.assertj.core.api.Assertions.entry("userId", "✓ 10001"));
        assertThat(stored.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(stored.retryCount()).isZero();
        assertThat(stored.maxRetryCount()).isEqualTo(7);
        assertThat(stored.traceId()).isEqualTo("trace-1");
        assertThat(stored.remark()).isEqualTo("first");
        assertThat(stored.version()).isZero();
        assertThat(stored.lockedBy()).isNull();
        assertThat(stored.lockUntil()).isNull();
        assertThat(stored.nextRetryTime()).isNull();
        assertThat(stored.createTime()).isEqualTo(START);
        assertThat(stored.updateTime()).isEqualTo(START);
    }

    @Test
    final void appliesDefaultsForVersionRetriesSourceAndEventNo() throws Exception {
        WriteResult r = inTx(c -> postbox.outbox().write(c, event(null).build()));
        OutboxRecord stored = postbox.queries().outbox().byEventNo(r.eventNo()).orElseThrow();
        assertThat(r.eventNo()).hasSize(36);
        assertThat(stored.eventVersion()).isEqualTo(1);
        assertThat(stored.maxRetryCount()).isEqualTo(5);
        assertThat(stored.source()).isEqualTo("test-service");
        assertThat(stored.headers()).isEmpty();
        assertThat(stored.topic()).isEqualTo("order.event");
    }

    @Test
    final void eventCommitsWithTheBusinessChange() throws Exception {
        inTx(c -> {
            insertOrder(c, "O-1");
            return postbox.outbox().write(c, event("ORDER_CREATED:O-1").build());
        });
        assertThat(count("app_order")).isEqualTo(1);
        assertThat(count(outbox())).isEqualTo(1);
    }

    @Test
    final void rolledBackBusinessTransactionLeavesNoEvent() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-1");
            assertThat(postbox.outbox().write(c, event("ORDER_CREATED:O-1").build()).inserted()).isTrue();
            c.rollback();
        }
        assertThat(count("app_order")).isZero();
        assertThat(count(outbox())).isZero();
    }

    @Test
    final void autoCommitConnectionIsRefusedAndNothingIsWritten() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> postbox.outbox().write(c, event("E-1").build()))
                    .isInstanceOf(TransactionRequiredException.class)
                    .hasMessageContaining("auto-commit");
            assertThatThrownBy(() -> postbox.outbox().writeAll(c, List.of(event("E-2").build())))
                    .isInstanceOf(TransactionRequiredException.class);
        }
        assertThat(count(outbox())).isZero();
    }

    @Test
    final void secondWriteWithSameEventNoChangesNothing() throws Exception {
        WriteResult first = inTx(c -> postbox.outbox().write(c, event("ORDER_CREATED:O-1").build()));
        // a relay has since leased and failed it: none of that may be reset by a repeated write
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("UPDATE " + outbox()
                + " SET publish_status = 1, retry_count = 3, locked_by = 'relay-9', version = 4, fail_reason = 'timeout'"
                + " WHERE event_no = 'ORDER_CREATED:O-1'")) {
            ps.executeUpdate();
        }
        OutboxRecord before = postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1").orElseThrow();
        clock.advance(Duration.ofMinutes(5));

        WriteResult second = inTx(c -> postbox.outbox().write(c, event("ORDER_CREATED:O-1")
                .aggregate("ORDER", "O-2").payload("{\"other\":true}").header("h", "v").maxRetries(1).build()));

        assertThat(first.inserted()).isTrue();
        assertThat(second.duplicate()).isTrue();
        assertThat(second.eventNo()).isEqualTo("ORDER_CREATED:O-1");
        assertThat(postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1").orElseThrow()).isEqualTo(before);
        assertThat(count(outbox())).isEqualTo(1);
    }

    @Test
    final void duplicateWriteLeavesTheTransactionUsable() throws Exception {
        inTx(c -> postbox.outbox().write(c, event("E-1").build()));
        inTx(c -> {
            insertOrder(c, "O-2");
            assertThat(postbox.outbox().write(c, event("E-1").build()).duplicate()).isTrue();
            assertThat(postbox.outbox().write(c, event("E-2").build()).inserted()).isTrue();
            insertOrder(c, "O-3");
            return null;
        });
        assertThat(count(outbox())).isEqualTo(2);
        assertThat(count("app_order")).isEqualTo(2);
    }

    @Test
    final void writeAllReportsEachOutcomeIncludingRepeatsInsideTheBatch() throws Exception {
        inTx(c -> postbox.outbox().write(c, event("E-2").build()));
        List<WriteResult> results = inTx(c -> postbox.outbox().writeAll(c, List.of(
                event("E-1").build(), event("E-2").build(), event("E-3").build(), event("E-1").build())));

        assertThat(results).extracting(WriteResult::eventNo).containsExactly("E-1", "E-2", "E-3", "E-1");
        assertThat(results).extracting(WriteResult::outcome).containsExactly(WriteResult.Outcome.INSERTED,
                WriteResult.Outcome.DUPLICATE, WriteResult.Outcome.INSERTED, WriteResult.Outcome.DUPLICATE);
        assertThat(count(outbox())).isEqualTo(3);
    }

    @Test
    final void writeAllSpansSeveralStatementsInOneTransaction() throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 1234; i++) {
            events.add(event("BULK-" + i).aggregate("ORDER", "O-" + (i % 17)).build());
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<WriteResult> results = postbox.outbox().writeAll(c, events);
            assertThat(results).allMatch(WriteResult::inserted);
            c.rollback();
        }
        assertThat(count(outbox())).isZero();
        List<WriteResult> results = inTx(c -> postbox.outbox().writeAll(c, events));
        assertThat(results).hasSize(1234).allMatch(WriteResult::inserted);
        assertThat(results).extracting(WriteResult::id).doesNotHaveDuplicates().isSorted();
        assertThat(count(outbox())).isEqualTo(1234);
    }

    @Test
    final void idsFollowWriteOrderEvenWhenTheClockStepsBack() throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int n = i;
            ids.add(inTx(c -> postbox.outbox().write(c, event("E-" + n).build())).id());
            clock.advance(Duration.ofMillis(n % 3 == 0 ? -50 : 1));
        }
        assertThat(ids).doesNotHaveDuplicates().isSorted();
    }

    @Test
    final void concurrentWritersOfOneEventNoLeaveExactlyOneRow() throws Exception {
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 5; round++) {
                String eventNo = "RACE-" + round;
                List<Future<WriteResult>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            insertOrder(c, eventNo + "-order-" + thread);
                            start.await(10, TimeUnit.SECONDS);
                            WriteResult r = postbox.outbox().write(c, event(eventNo)
                                    .payload("{\"writer\":" + thread + "}").build());
                            c.commit();
                            return r;
                        }
                    }));
                }
                List<WriteResult> results = new ArrayList<>();
                for (Future<WriteResult> f : futures) {
                    results.add(f.get(60, TimeUnit.SECONDS));
                }
                assertThat(results).filteredOn(WriteResult::inserted).hasSize(1);
                assertThat(results).filteredOn(WriteResult::duplicate).hasSize(threads - 1);
                assertThat(queryLong("SELECT COUNT(*) FROM " + outbox() + " WHERE event_no = ?", eventNo)).isEqualTo(1);
            }
            // every writer's business change committed, duplicate or not
            assertThat(count("app_order")).isEqualTo(5L * threads);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    final void customTablePrefixWritesToItsOwnTables() throws Exception {
        Postbox other = newPostbox(b -> b.tablePrefix("tenant2_"));
        other.schema().install();
        inTx(c -> other.outbox().write(c, event("E-1").build()));
        assertThat(count("tenant2_outbox_event")).isEqualTo(1);
        assertThat(count(outbox())).isZero();
        assertThat(other.queries().outbox().byEventNo("E-1")).isPresent();
        assertThat(postbox.queries().outbox().byEventNo("E-1")).isEmpty();
        for (String t : Set.of("message_event", "consume_log", "compensation_log",
                "outbox_event_archive", "message_event_archive", "consume_log_archive", "compensation_log_archive")) {
            assertThat(count("tenant2_" + t)).as("tenant2_" + t + " exists and is empty").isZero();
        }
    }
}
