package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Hosts;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Heartbeat;
import dev.postbox.message.FailOutcome;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageHandler;
import dev.postbox.message.MessageWorker;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPlan;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionTable;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.Await;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What relays and message workers write for the operations console (schema version 8), on a real database: one
 * attempt row per failed attempt and per lease takeover (and none for a success), the instance row a heartbeat
 * keeps, the stats rows of each heartbeat window, and the clean-up of all three (retention for the attempts, the
 * heartbeat for the rest).
 */
public abstract class OperationsHistoryContract extends DatabaseContract {

    private static final Duration BEAT = Duration.ofMillis(100);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String TYPE = "STOCK_RESERVE";

    /** One row of the attempt table. */
    record Attempt(String kind, long eventId, String eventNo, int attempt, String outcome, String error,
                   String instance, Instant nextRetry, Instant createTime) {
    }

    /** One row of the instance table. */
    record InstanceRow(String instance, String role, String host, String detail, Instant started, Instant lastSeen,
                       Instant stopped) {
    }

    /** One row of the stats table. */
    record StatsRow(String instance, Instant windowStart, Instant windowEnd, long succeeded, long failed, long dead,
                    long latencySum, long latencyMax, long[] histogram) {
    }

    /** Whether the binding runs on the time-partitioned outbox ({@code @PartitionedOutbox}). */
    protected boolean partitionedOutbox() {
        return false;
    }

    @BeforeEach
    final void emptyOperationsTables() throws SQLException {
        exec("DELETE FROM " + postbox.tables().eventAttempt());
        exec("DELETE FROM " + postbox.tables().relayInstance());
        exec("DELETE FROM " + postbox.tables().relayStats());
    }

    // ---- attempt history: the relay

    @Test
    final void everyFailedPublishLeavesOneAttemptRowAndASuccessNone() throws Exception {
        write("F-1", "A1", 2, null);
        write("P-1", "A2", 5, null);
        write("OK-1", "A3", 5, null);
        Publisher publisher = outcomes(r -> switch (r.eventNo()) {
            case "F-1" -> PublishResult.retry("broker said no: 503");
            case "P-1" -> PublishResult.dead("payload rejected by the schema registry");
            default -> PublishResult.published();
        });
        long f1 = postbox.queries().outbox().byEventNo("F-1").orElseThrow().id();
        try (Relay relay = relay(publisher, "relay-h1").build()) {
            for (int i = 0; i < 3; i++) {
                relay.runOnce();
                clock.advance(Duration.ofSeconds(2));
            }
        }
        List<Attempt> f = attempts("F-1");
        assertThat(f).extracting(Attempt::attempt).containsExactly(1, 2, 3);
        assertThat(f).extracting(Attempt::outcome).containsExactly("FAILED", "FAILED", "DEAD");
        assertThat(f).extracting(Attempt::createTime).containsExactly(START, START.plusSeconds(2), START.plusSeconds(4));
        assertThat(f).allSatisfy(a -> {
            assertThat(a.kind()).isEqualTo("OUTBOX");
            assertThat(a.eventId()).isEqualTo(f1);
            assertThat(a.instance()).isEqualTo("relay-h1");
        });
        assertThat(f.get(0).error()).isEqualTo("broker said no: 503");
        assertThat(f.get(0).nextRetry()).as("the retry the failure scheduled").isEqualTo(START.plusSeconds(1));
        assertThat(f.get(2).error()).isEqualTo("retries exhausted (2): broker said no: 503");
        assertThat(f.get(2).nextRetry()).isNull();
        OutboxRecord dead = postbox.queries().outbox().byEventNo("F-1").orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.retryCount()).as("attempt = retry_count after the failure").isEqualTo(3);
        assertThat(dead.updateTime()).as("the same now as the update").isEqualTo(f.get(2).createTime());

        assertThat(attempts("P-1")).singleElement().satisfies(a -> {
            assertThat(a.outcome()).isEqualTo("DEAD");
            assertThat(a.attempt()).isEqualTo(1);
            assertThat(a.error()).isEqualTo("payload rejected by the schema registry");
        });
        assertThat(postbox.queries().outbox().byEventNo("OK-1").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(attempts("OK-1")).as("a successful publish writes no attempt row").isEmpty();
        assertThat(count(postbox.tables().eventAttempt())).isEqualTo(4);
    }

    @Test
    final void aFailureTheRelayCouldNoLongerRecordLeavesNoAttemptRow() throws Exception {
        write("X-1", "A1", 5, null);
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, Set.of());
        List<OutboxRecord> claimed;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            claimed = claimer.claim(c, 10, "relay-late", clock.instant(), clock.instant().plus(RelayDefaults.LEASE));
            c.commit();
        }
        clock.advance(RelayDefaults.LEASE.plusSeconds(1));
        try (Relay other = relay(outcomes(r -> PublishResult.published()), "relay-other").build()) {
            other.runOnce(); // takes it over and publishes it
        }
        assertThat(attempts("X-1")).extracting(Attempt::outcome).containsExactly("LEASE_EXPIRED");
        // the first relay comes back and records a failure its lease no longer covers: fenced, so no row
        try (Relay late = relay(outcomes(r -> PublishResult.retry("no")), "relay-late").build()) {
            Recorder recorder = new Recorder(dev.postbox.testing.PostboxInternals.settings(postbox), late.config(),
                    late.pool(), new Leases(postbox.dialect(), postbox.tables().outbox()), () -> false,
                    new WindowStats(LatencyBuckets.upperBounds()));
            List<Leases.Failure> failures = new ArrayList<>(List.of(
                    new Leases.Failure(claimed.get(0), false, "late", clock.instant().plusSeconds(1), 1)));
            Cycle cycle = recorder.record(new Outcomes.Sorted(List.of(), failures, List.of()), clock.instant(),
                    System.nanoTime(), 0);
            assertThat(cycle.fenced()).isEqualTo(1);
        }
        assertThat(attempts("X-1")).extracting(Attempt::outcome).containsExactly("LEASE_EXPIRED");
    }

    @Test
    final void takeoversAfterAKilledRelayLeaveLeaseExpiredAttemptsNamingTheRelayThatHeldThem() throws Exception {
        for (int i = 0; i < 9; i++) {
            write("K-" + i, "A" + (i % 3), 5, null); // three aggregates of three: heads and followers
        }
        Claimer all = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), false, Set.of());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(all.claim(c, 10, "dead-relay", clock.instant(), clock.instant().plus(RelayDefaults.LEASE)))
                    .hasSize(9);
            c.commit(); // ... and the relay is killed
        }
        clock.advance(RelayDefaults.LEASE.plusMillis(1));
        Instant takenOver = clock.instant();
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-live").build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).as("the heads by the claim, the rest as their followers").isEqualTo(9);
            assertThat(cycle.takenOver()).isEqualTo(9);
        }
        assertThat(receiver.distinct()).isEqualTo(9);
        List<Attempt> rows = allAttempts();
        assertThat(rows).hasSize(9).extracting(Attempt::eventNo)
                .containsExactlyInAnyOrder("K-0", "K-1", "K-2", "K-3", "K-4", "K-5", "K-6", "K-7", "K-8");
        assertThat(rows).allSatisfy(a -> {
            assertThat(a.kind()).isEqualTo("OUTBOX");
            assertThat(a.outcome()).isEqualTo("LEASE_EXPIRED");
            if (a.instance().equals("dead-relay")) {
                assertThat(a.error()).contains("lease of relay dead-relay expired");
            } else {
                assertThat(claimNamesTheHolder()).as("only a claim that cannot read the old holder leaves it out").isFalse();
                assertThat(a.instance()).as("the relay that took it over").isEqualTo("relay-live");
                assertThat(a.error()).contains("which relay held it is not known");
            }
            assertThat(a.attempt()).as("the retry count: a takeover is no failed attempt").isZero();
            assertThat(a.error()).contains("taken over by relay relay-live");
            assertThat(a.nextRetry()).isNull();
            assertThat(a.createTime()).isEqualTo(takenOver);
        });
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(9);
    }

    @Test
    final void anEventTakenOverTooOftenEndsWithItsTakeoverAndADeadAttempt() throws Exception {
        write("T-1", "A1", 5, null);
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, Set.of());
        for (String crashed : List.of("crash-1", "crash-2")) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                assertThat(claimer.claim(c, 10, crashed, clock.instant(), clock.instant().plus(RelayDefaults.LEASE)))
                        .hasSize(1);
                c.commit();
            }
            clock.advance(RelayDefaults.LEASE.plusMillis(1));
        }
        try (Relay relay = relay(outcomes(r -> PublishResult.published()), "relay-last").maxLeaseExpiries(1).build()) {
            relay.runOnce();
        }
        // the bare claims stand in for relays killed right after claiming: only a relay's claim writes attempt rows
        List<Attempt> rows = attempts("T-1");
        assertThat(rows).extracting(Attempt::outcome).containsExactly("LEASE_EXPIRED", "DEAD");
        assertThat(rows).extracting(Attempt::instance)
                .containsExactly(claimNamesTheHolder() ? "crash-2" : "relay-last", "relay-last");
        assertThat(rows).extracting(Attempt::attempt).containsOnly(0);
        assertThat(rows.get(0).error()).contains("takeover 2");
        assertThat(rows.get(1).error()).contains("taken over 2 times");
        assertThat(postbox.queries().outbox().byEventNo("T-1").orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }

    // ---- attempt history: message events

    @Test
    final void failingHandlersLeaveMessageAttemptsAndARecoveryNamesTheWorkerThatRecovered() throws Exception {
        long fail = message("M-FAIL", 1);
        message("M-OK", 1);
        MessageHandler handler = e -> {
            if (e.eventNo().equals("M-FAIL")) {
                throw new IllegalStateException("stock service down");
            }
        };
        try (MessageWorker worker = worker(handler, "worker-h1").build()) {
            assertThat(worker.runOnce().succeeded()).isEqualTo(1);
            clock.advance(Duration.ofSeconds(61));
            worker.runOnce();
        }
        List<Attempt> rows = attempts("M-FAIL");
        assertThat(rows).extracting(Attempt::outcome).containsExactly("FAILED", "DEAD");
        assertThat(rows).extracting(Attempt::attempt).containsExactly(1, 2);
        assertThat(rows).extracting(Attempt::createTime).containsExactly(START, START.plusSeconds(61));
        assertThat(rows).allSatisfy(a -> {
            assertThat(a.kind()).isEqualTo("MESSAGE");
            assertThat(a.eventId()).isEqualTo(fail);
            assertThat(a.instance()).isEqualTo("worker-h1");
        });
        assertThat(rows.get(0).error()).isEqualTo("java.lang.IllegalStateException: stock service down");
        assertThat(rows.get(0).nextRetry()).isEqualTo(START.plusSeconds(60));
        assertThat(rows.get(1).error()).startsWith("retries exhausted (1): ");
        assertThat(rows.get(1).nextRetry()).isNull();
        assertThat(attempts("M-OK")).as("a handled event writes no attempt row").isEmpty();

        long stuck = message("M-STUCK", 3);
        inTx(c -> postbox.messages().claim(c, stuck)); // its worker dies while handling it
        clock.advance(Duration.ofMinutes(6));
        try (MessageWorker recovering = worker(handler, "worker-h2").build()) {
            recovering.runOnce();
        }
        assertThat(attempts("M-STUCK")).singleElement().satisfies(a -> {
            assertThat(a.outcome()).isEqualTo("FAILED");
            assertThat(a.attempt()).isEqualTo(1);
            assertThat(a.instance()).isEqualTo("worker-h2");
            assertThat(a.error()).startsWith("recovered by worker worker-h2: ");
        });
    }

    @Test
    final void failuresAnApplicationRecordsByHandLeaveMessageAttemptsWithoutAnInstance() throws Exception {
        long id = message("M-APP", 1);
        long other = message("M-PERM", 5);
        inTx(c -> postbox.messages().claim(c, id));
        assertThat(this.<FailOutcome>inTx(c -> postbox.messages().fail(c, id, "app says no", Duration.ofSeconds(30))))
                .isEqualTo(FailOutcome.RETRY_SCHEDULED);
        assertThat(this.<FailOutcome>inTx(c -> postbox.messages().fail(c, id, "not processing now", Duration.ZERO)))
                .as("nothing changed, nothing recorded").isEqualTo(FailOutcome.NOT_PROCESSING);
        clock.advance(Duration.ofSeconds(31));
        inTx(c -> postbox.messages().claim(c, id));
        assertThat(this.<FailOutcome>inTx(c -> postbox.messages().fail(c, id, "app says no again", Duration.ZERO))).isEqualTo(FailOutcome.DEAD);
        inTx(c -> postbox.messages().claim(c, other));
        assertThat(this.<FailOutcome>inTx(c -> postbox.messages().failPermanently(c, other, "bad data"))).isEqualTo(FailOutcome.DEAD);

        List<Attempt> rows = attempts("M-APP");
        assertThat(rows).extracting(Attempt::outcome).containsExactly("FAILED", "DEAD");
        assertThat(rows).extracting(Attempt::attempt).containsExactly(1, 2);
        assertThat(rows).extracting(Attempt::error).containsExactly("app says no", "app says no again");
        assertThat(rows.get(0).nextRetry()).isEqualTo(START.plusSeconds(30));
        assertThat(rows).extracting(Attempt::instance).containsOnlyNulls();
        assertThat(rows).extracting(Attempt::kind).containsOnly("MESSAGE");
        assertThat(attempts("M-PERM")).singleElement().satisfies(a -> {
            assertThat(a.outcome()).isEqualTo("DEAD");
            assertThat(a.attempt()).isEqualTo(1);
            assertThat(a.error()).isEqualTo("bad data");
        });
        // in the caller's transaction: rolled back with it
        long third = message("M-ROLLBACK", 5);
        inTx(c -> postbox.messages().claim(c, third));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().fail(c, third, "rolled back", Duration.ZERO);
            c.rollback();
        }
        assertThat(attempts("M-ROLLBACK")).isEmpty();
    }

    // ---- instances

    @Test
    final void aStartedRelayKeepsItsInstanceRowFreshAndStopsItOnClose() throws Exception {
        Relay relay = relay(to(new Receiver()), "relay-beat").heartbeatInterval(BEAT).start();
        InstanceRow first;
        try {
            Await.until("the relay's instance row", WAIT, () -> instanceQuietly("relay-beat") != null);
            first = instance("relay-beat");
            assertThat(first.role()).isEqualTo("relay");
            assertThat(first.host()).isEqualTo(Hosts.name());
            assertThat(first.detail()).contains("publisher ").contains("batch 500").contains("ordered");
            assertThat(first.started()).isNotNull();
            assertThat(first.lastSeen()).isAfterOrEqualTo(first.started());
            assertThat(first.stopped()).isNull();
            Await.until("a later heartbeat", WAIT, () -> instanceQuietly("relay-beat").lastSeen().isAfter(first.lastSeen()));
        } finally {
            relay.close();
        }
        InstanceRow closed = instance("relay-beat");
        assertThat(closed.stopped()).as("a clean close").isNotNull().isEqualTo(closed.lastSeen());
        assertThat(closed.started()).isEqualTo(first.started());

        try (Relay again = relay(to(new Receiver()), "relay-beat").heartbeatInterval(BEAT).start()) {
            Await.until("the restart's row", WAIT, () -> instanceQuietly("relay-beat").stopped() == null);
            assertThat(instance("relay-beat").started()).as("a new start").isAfter(first.started());
        }
        assertThat(count(postbox.tables().relayInstance())).isEqualTo(1);
    }

    @Test
    final void aStartedWorkerKeepsItsInstanceRowFreshAndStopsItOnClose() throws Exception {
        MessageWorker worker = worker(e -> { }, "worker-beat").heartbeatInterval(BEAT).start();
        InstanceRow first;
        try {
            Await.until("the worker's instance row", WAIT, () -> instanceQuietly("worker-beat") != null);
            first = instance("worker-beat");
            assertThat(first.role()).isEqualTo("worker");
            assertThat(first.detail()).contains(TYPE);
            assertThat(first.stopped()).isNull();
            Await.until("a later heartbeat", WAIT, () -> instanceQuietly("worker-beat").lastSeen().isAfter(first.lastSeen()));
        } finally {
            worker.close();
        }
        assertThat(instance("worker-beat").stopped()).isNotNull();
    }

    @Test
    final void aRelayOnlyRunOnceWritesNoInstanceRow() throws Exception {
        write("O-1", "A1", 5, null);
        try (Relay relay = relay(to(new Receiver()), "relay-once").heartbeatInterval(BEAT).build()) {
            relay.runOnce();
        }
        assertThat(count(postbox.tables().relayInstance())).isZero();
        assertThat(count(postbox.tables().relayStats())).isZero();
    }

    // ---- stats

    @Test
    final void statsRowsCountWhatARelayPublishedAndFailedWithTheirLatencies() throws Exception {
        clock.set(START.minusMillis(3_000));
        for (int i = 0; i < 4; i++) {
            write("L3000-" + i, "S" + i, 5, null);
        }
        clock.set(START.minusMillis(40));
        for (int i = 0; i < 3; i++) {
            write("L40-" + i, "T" + i, 5, null);
        }
        write("R-0", "R0", 5, null);
        write("R-1", "R1", 5, null);
        write("D-0", "D0", 5, null);
        clock.set(START);
        Publisher publisher = outcomes(r -> r.eventNo().startsWith("R-") ? PublishResult.retry("later")
                : r.eventNo().startsWith("D-") ? PublishResult.dead("never") : PublishResult.published());
        try (Relay relay = relay(publisher, "relay-stats").heartbeatInterval(BEAT).start()) {
            Await.until("every event recorded", WAIT, () -> countQuietly(OutboxStatus.PENDING) == 0
                    && countQuietly(OutboxStatus.PUBLISHING) == 0);
            Await.until("a stats row", WAIT, () -> statsQuietly("relay-stats").size() > 0);
        }
        List<StatsRow> rows = stats("relay-stats");
        assertThat(rows.stream().mapToLong(StatsRow::succeeded).sum()).isEqualTo(7);
        assertThat(rows.stream().mapToLong(StatsRow::failed).sum()).isEqualTo(2);
        assertThat(rows.stream().mapToLong(StatsRow::dead).sum()).isEqualTo(1);
        assertThat(rows.stream().mapToLong(StatsRow::latencySum).sum()).isEqualTo(4 * 3_000 + 3 * 40);
        assertThat(rows.stream().mapToLong(StatsRow::latencyMax).max().orElseThrow()).isEqualTo(3_000);
        long[] histogram = new long[LatencyBuckets.COUNT];
        for (StatsRow r : rows) {
            assertThat(java.util.Arrays.stream(r.histogram()).sum()).as("a row's histogram sums to its count")
                    .isEqualTo(r.succeeded());
            assertThat(r.windowEnd()).isAfterOrEqualTo(r.windowStart());
            assertThat(r.succeeded() + r.failed() + r.dead()).as("no row for an empty window").isPositive();
            LatencyBuckets.add(histogram, r.histogram());
        }
        long[] expected = new long[LatencyBuckets.COUNT];
        expected[LatencyBuckets.bucketOf(3_000)] = 4;
        expected[LatencyBuckets.bucketOf(40)] = 3;
        assertThat(histogram).containsExactly(expected);
        assertThat(LatencyBuckets.quantileMillis(histogram, 0.5, 3_000)).as("the bucket's bound 5,000, capped by the max")
                .isEqualTo(3_000L);
        assertThat(LatencyBuckets.quantileMillis(histogram, 0.4, 3_000)).isEqualTo(50L);
    }

    @Test
    final void statsRowsCountWhatAWorkerHandledAndFailed() throws Exception {
        clock.set(START.minusMillis(700));
        message("W-OK-1", 5);
        message("W-OK-2", 5);
        message("W-RETRY", 5);
        message("W-DEAD", 0);
        clock.set(START);
        MessageHandler handler = e -> {
            if (!e.eventNo().startsWith("W-OK")) {
                throw new IllegalStateException("no");
            }
        };
        try (MessageWorker worker = worker(handler, "worker-stats").heartbeatInterval(BEAT).start()) {
            Await.until("a stats row with all four", WAIT, () -> statsQuietly("worker-stats").stream()
                    .mapToLong(r -> r.succeeded() + r.failed() + r.dead()).sum() == 4);
        }
        List<StatsRow> rows = stats("worker-stats");
        assertThat(rows.stream().mapToLong(StatsRow::succeeded).sum()).isEqualTo(2);
        assertThat(rows.stream().mapToLong(StatsRow::failed).sum()).isEqualTo(1);
        assertThat(rows.stream().mapToLong(StatsRow::dead).sum()).isEqualTo(1);
        assertThat(rows.stream().mapToLong(StatsRow::latencySum).sum()).isEqualTo(1_400);
        long[] histogram = new long[LatencyBuckets.COUNT];
        rows.forEach(r -> LatencyBuckets.add(histogram, r.histogram()));
        assertThat(histogram[LatencyBuckets.bucketOf(700)]).isEqualTo(2);
        assertThat(java.util.Arrays.stream(histogram).sum()).isEqualTo(2);
    }

    @Test
    final void aFailedHeartbeatCarriesItsWindowOverToTheNextOne() throws Exception {
        WindowStats stats = new WindowStats(LatencyBuckets.upperBounds());
        WindowStats.Tally tally = stats.tally();
        tally.succeeded(12);
        tally.succeeded(70_000);
        tally.failed();
        tally.add();
        javax.sql.DataSource unusable = new org.h2.jdbcx.JdbcDataSource(); // no URL: every connection fails
        Heartbeat broken = new Heartbeat(postbox.dialect(), postbox.tables(), unusable, "beat-test", "relay", "test",
                BEAT, stats, LoggerFactory.getLogger(getClass()), "Heartbeat test");
        assertThat(broken.beat()).as("logged, not thrown").isFalse();
        Heartbeat working = new Heartbeat(postbox.dialect(), postbox.tables(), ds, "beat-test", "relay", "test",
                BEAT, stats, LoggerFactory.getLogger(getClass()), "Heartbeat test");
        assertThat(working.beat()).isTrue();
        StatsRow row = stats("beat-test").get(0);
        assertThat(List.of(row.succeeded(), row.failed(), row.dead(), row.latencySum(), row.latencyMax()))
                .containsExactly(2L, 1L, 0L, 70_012L, 70_000L);
        assertThat(row.histogram()[LatencyBuckets.bucketOf(12)]).isEqualTo(1);
        assertThat(row.histogram()[LatencyBuckets.COUNT - 1]).as("above the last bound").isEqualTo(1);
        assertThat(working.beat()).isTrue();
        assertThat(stats("beat-test")).as("an empty window writes no row").hasSize(1);
        assertThat(instance("beat-test").role()).isEqualTo("relay");
    }

    @Test
    final void theHeartbeatDeletesOldStatsAndInstancesAndKeepsRecentOnes() throws Exception {
        Instant now = databaseNow();
        insertInstance("gone-8d", now.minus(Duration.ofDays(8)));
        insertInstance("quiet-6d", now.minus(Duration.ofDays(6)));
        insertStats("gone-8d", now.minus(Duration.ofDays(3)));
        insertStats("quiet-6d", now.minus(Duration.ofDays(1)));
        try (Relay relay = relay(to(new Receiver()), "relay-clean").heartbeatInterval(BEAT).start()) {
            Await.until("the old rows gone", WAIT, () -> instanceQuietly("gone-8d") == null
                    && statsQuietly("gone-8d").isEmpty());
        }
        assertThat(instance("quiet-6d")).as("seen within 7 days").isNotNull();
        assertThat(stats("quiet-6d")).as("within 2 days").hasSize(1);
        assertThat(instance("relay-clean")).isNotNull();
    }

    @Test
    final void heartbeatSettingsAreValidated() {
        for (Duration bad : new Duration[] {null, Duration.ofMillis(99), Duration.ofSeconds(61)}) {
            assertThatThrownBy(() -> relay(to(new Receiver()), "r").heartbeatInterval(bad).build())
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("heartbeatInterval"))
                    .hasMessageContaining("between PT0.1S and PT1M");
            assertThatThrownBy(() -> worker(e -> { }, "w").heartbeatInterval(bad).build())
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("heartbeatInterval"))
                    .hasMessageContaining("between PT0.1S and PT1M");
        }
    }

    // ---- retention of the attempt history

    @Test
    final void retentionDeletesAttemptRowsOlderThanTheOutboxWindowAndKeepsNewerOnes() throws Exception {
        Publisher failing = outcomes(r -> PublishResult.dead("no"));
        clock.set(START.minus(Duration.ofDays(10)));
        write("OLD-F", "A1", 0, null);
        try (Relay relay = relay(failing, "relay-old").build()) {
            relay.runOnce();
        }
        clock.set(START.minus(Duration.ofDays(1)));
        write("NEW-F", "A2", 0, null);
        try (Relay relay = relay(failing, "relay-new").build()) {
            relay.runOnce();
        }
        clock.set(START);
        assertThat(allAttempts()).hasSize(2);

        RetentionPolicy.Builder b = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7));
        assertThat(postbox.outboxPartitions().partitioned()).as("the binding's outbox").isEqualTo(partitionedOutbox());
        if (partitionedOutbox()) {
            b.partitions(RetentionTable.OUTBOX); // the partitions strategy sweeps the attempt history as well
        }
        RetentionPolicy policy = b.build();
        assertThat(policy.rules()).as("the derived rule is not the user's").hasSize(1);
        assertThat(policy.rules(RetentionTable.ATTEMPTS)).singleElement()
                .isEqualTo(new RetentionPolicy.Rule(RetentionTable.ATTEMPTS, null, Duration.ofDays(7)));
        try (Retention retention = postbox.retention(policy).batchSize(1).build()) {
            RetentionPlan plan = retention.plan();
            assertThat(plan.rows(RetentionTable.ATTEMPTS, "ANY")).isEqualTo(1);
            dev.postbox.retention.RetentionReport report = retention.runOnce();
            assertThat(report.table(RetentionTable.ATTEMPTS).removed()).isEqualTo(1);
            assertThat(report.table(RetentionTable.OUTBOX).strategy()).isEqualTo(partitionedOutbox()
                    ? RetentionPolicy.Strategy.PARTITIONS : RetentionPolicy.Strategy.DELETE);
        }
        assertThat(allAttempts()).extracting(Attempt::eventNo).containsExactly("NEW-F");
        assertThat(postbox.queries().outbox().byEventNo("OLD-F")).as("its DEAD event is kept: no DEAD rule").isPresent();

        RetentionPolicy own = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
                .attempts(Duration.ofHours(12)).build();
        try (Retention retention = postbox.retention(own).build()) {
            assertThat(retention.runOnce().table(RetentionTable.ATTEMPTS).removed()).as("its own window").isEqualTo(1);
        }
        assertThat(allAttempts()).isEmpty();
        assertThat(RetentionPolicy.builder().consumeLog(Duration.ofDays(1)).build().rules(RetentionTable.ATTEMPTS))
                .as("no event rule, no attempt rule").isEmpty();
        assertThatThrownBy(() -> RetentionPolicy.builder().archive(RetentionTable.ATTEMPTS))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("attempts.strategy"));
    }

    // ---- helpers

    private RelayBuilder relay(Publisher publisher, String id) {
        return postbox.relay(publisher).instanceId(id).batchSize(500).poolSize(2).clockSkewCheck(false)
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofSeconds(1))));
    }

    private dev.postbox.message.MessageWorkerBuilder worker(MessageHandler handler, String id) {
        return postbox.worker().instanceId(id).handler(TYPE, handler)
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1))));
    }

    private static Publisher to(Receiver receiver) {
        return outcomes(r -> {
            receiver.accept(r);
            return PublishResult.published();
        });
    }

    private static Publisher outcomes(Function<OutboxRecord, PublishResult> outcome) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                out.add(CompletableFuture.completedFuture(outcome.apply(r)));
            }
            return out;
        };
    }

    private void write(String eventNo, String aggregate, int maxRetries, String topic) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregate)
                .eventType("ORDER_CHANGED").channel("MQ").topic(topic == null ? "orders" : topic)
                .maxRetries(maxRetries).payload("{}").build()));
    }

    private long message(String eventNo, int maxRetries) throws Exception {
        return inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo(eventNo).eventType(TYPE)
                .biz("ORDER", eventNo).payload("{}").maxRetries(maxRetries).build())).id();
    }

    private long countStatus(OutboxStatus status) throws SQLException {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    private long countQuietly(OutboxStatus status) {
        try {
            return countStatus(status);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Attempt> attempts(String eventNo) throws SQLException {
        return readAttempts(" WHERE event_no = ?", eventNo);
    }

    private List<Attempt> allAttempts() throws SQLException {
        return readAttempts("", null);
    }

    private List<Attempt> readAttempts(String where, String param) throws SQLException {
        List<Attempt> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT event_kind, event_id, event_no, attempt, outcome, error, instance, next_retry_time, create_time
                FROM %s%s ORDER BY id""".formatted(postbox.tables().eventAttempt(), where))) {
            if (param != null) {
                ps.setString(1, param);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Attempt(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getInt(4), rs.getString(5),
                            rs.getString(6), rs.getString(7), postbox.dialect().readTime(rs, "next_retry_time"),
                            postbox.dialect().readTime(rs, "create_time")));
                }
            }
        }
        return out;
    }

    private InstanceRow instance(String instance) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT instance, role, host, detail, started_time, last_seen_time, stopped_time FROM %s
                WHERE instance = ?""".formatted(postbox.tables().relayInstance()))) {
            ps.setString(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                var d = postbox.dialect();
                return new InstanceRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        d.readTime(rs, "started_time"), d.readTime(rs, "last_seen_time"), d.readTime(rs, "stopped_time"));
            }
        }
    }

    private InstanceRow instanceQuietly(String instance) {
        try {
            return instance(instance);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<StatsRow> stats(String instance) throws SQLException {
        List<StatsRow> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT instance, window_start, window_end, succeeded, failed, dead, latency_sum_ms, latency_max_ms,
                latency_hist FROM %s WHERE instance = ? ORDER BY id""".formatted(postbox.tables().relayStats()))) {
            ps.setString(1, instance);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    var d = postbox.dialect();
                    out.add(new StatsRow(rs.getString(1), d.readTime(rs, "window_start"), d.readTime(rs, "window_end"),
                            rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8),
                            LatencyBuckets.parse(rs.getString(9))));
                }
            }
        }
        return out;
    }

    private List<StatsRow> statsQuietly(String instance) {
        try {
            return stats(instance);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Instant databaseNow() throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT " + postbox.dialect().currentTimeSql() + " AS db_now"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return postbox.dialect().readTime(rs, "db_now");
        }
    }

    private void insertInstance(String instance, Instant lastSeen) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().relayInstance()
                    + " (instance, role, host, detail, started_time, last_seen_time) VALUES (?, 'relay', 'h', 'd', ?, ?)")) {
                ps.setString(1, instance);
                postbox.dialect().bindTime(ps, 2, lastSeen);
                postbox.dialect().bindTime(ps, 3, lastSeen);
                return ps.executeUpdate();
            }
        });
    }

    private void insertStats(String instance, Instant windowStart) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().relayStats()
                    + " (instance, window_start, window_end, succeeded, latency_hist) VALUES (?, ?, ?, 1, ?)")) {
                ps.setString(1, instance);
                postbox.dialect().bindTime(ps, 2, windowStart);
                postbox.dialect().bindTime(ps, 3, windowStart.plusSeconds(10));
                ps.setString(4, "1,0,0,0,0,0,0,0,0,0,0,0,0,0");
                return ps.executeUpdate();
            }
        });
    }

    /**
     * Whether the claim of heads reads the holder of an expired lease before it leases the row (MySQL and H2 read
     * rows first); PostgreSQL's claim is one UPDATE whose RETURNING sees only the new row.
     */
    protected boolean claimNamesTheHolder() {
        return true;
    }
}
