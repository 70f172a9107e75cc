package dev.postbox.operations;

import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every statement the operations service adds reads its table through an index, once the tables look like
 * production: 20,000 outbox events (mostly published, some pending, in flight, failed, dead, over 2,000
 * aggregates), 5,000 message events, two days of attempts, heartbeat stats and admin actions, a consume log and a
 * compensation log; statistics refreshed. Each statement is EXPLAINed as the service runs it, with realistic values
 * bound. (The instance and job-lease tables hold one row per process or job and are pruned by the heartbeat; they
 * are read with a LIMIT, and a planner rightly scans a table that small.) The rows live in tables of their own
 * (prefix {@code opx_}), loaded once per class.
 */
public abstract class OperationsIndexContract extends DatabaseContract {

    private static final int OUTBOX = 20_000;
    private static final int KEYS = 2_000;
    private dev.postbox.Postbox px;
    private JdbcOperations ops;

    /** Fails unless {@code sql} with {@code params} bound reads {@code table} through an index (EXPLAIN). */
    protected abstract void assertNoFullScan(String table, String sql, List<Object> params) throws SQLException;

    /** Refreshes the planner's statistics of {@code table}. */
    protected abstract void analyze(String table) throws SQLException;

    /** The rows of {@code EXPLAIN sql} with {@code params} bound, each as {@code line} renders it. */
    protected List<String> explain(String sql, List<Object> params, ExplainLine line) throws SQLException {
        return explain(px.dialect(), sql, params, line);
    }

    @BeforeAll
    final void load() throws Exception {
        // tables of their own, loaded once: DatabaseContract empties the default ones before each test
        px = newPostbox(b -> b.tablePrefix("opx_"));
        px.schema().install();
        var t = px.tables();
        Instant now = START;
        int[] statuses = new int[OUTBOX];
        batch("INSERT INTO " + t.outbox() + " (event_no, aggregate_type, aggregate_id, event_type, event_source,"
                + " publish_channel, topic, event_payload, publish_status, locked_by, trace_id, create_time, update_time)"
                + " VALUES (?, 'ORDER', ?, 'T', 's', 'MQ', 'orders', " + px.dialect().jsonParameter() + ", ?, ?, ?, ?, ?)",
                OUTBOX, (ps, i) -> {
                    int status = i % 50 == 0 ? 5 : i % 50 == 1 ? 3 : i % 100 == 2 ? 1 : i >= OUTBOX - 800 ? 0 : 2;
                    statuses[i] = status;
                    ps.setString(1, "L-" + i);
                    ps.setString(2, "K-" + (i % KEYS));
                    px.dialect().bindJson(ps, 3, "{}");
                    ps.setInt(4, status);
                    ps.setString(5, status == 1 ? "relay-" + (i % 3) : null);
                    ps.setString(6, "tr-" + i);
                    px.dialect().bindTime(ps, 7, now.minusSeconds(OUTBOX - i));
                    px.dialect().bindTime(ps, 8, now);
                });
        batch("INSERT INTO " + t.message() + " (event_no, event_type, biz_type, biz_id, event_source, event_payload,"
                + " event_status, create_time, update_time) VALUES (?, 'X', 'ORDER', ?, 's', "
                + px.dialect().jsonParameter() + ", ?, ?, ?)", 5_000, (ps, i) -> {
                    ps.setString(1, "ML-" + i);
                    ps.setString(2, "K-" + (i % KEYS));
                    px.dialect().bindJson(ps, 3, "{}");
                    ps.setInt(4, i % 10 == 0 ? 3 : 2);
                    px.dialect().bindTime(ps, 5, now.minusSeconds(5_000 - i));
                    px.dialect().bindTime(ps, 6, now);
                });
        for (String[] archive : new String[][] {
                {t.outboxArchive(), "aggregate_type, aggregate_id, publish_channel, publish_status", "'ORDER', 'K-1', 'MQ', 2"},
                {t.messageArchive(), "biz_type, biz_id, event_status", "'ORDER', 'K-1', 2"}}) {
            batch("INSERT INTO " + archive[0] + " (id, event_no, event_type, event_source, event_payload, " + archive[1]
                    + ", create_time, update_time, archived_time) VALUES (?, ?, 'T', 's', " + px.dialect().jsonParameter()
                    + ", " + archive[2] + ", ?, ?, ?)", 3_000, (ps, i) -> {
                        ps.setLong(1, 1_000_000L + i);
                        ps.setString(2, "A-" + i);
                        px.dialect().bindJson(ps, 3, "{}");
                        px.dialect().bindTime(ps, 4, now.minus(Duration.ofDays(30)));
                        px.dialect().bindTime(ps, 5, now.minus(Duration.ofDays(30)));
                        px.dialect().bindTime(ps, 6, now.minus(Duration.ofDays(20)));
                    });
        }
        Duration twoDays = Duration.ofDays(2);
        batch("INSERT INTO " + t.eventAttempt() + " (event_kind, event_id, event_no, attempt, outcome, error, instance,"
                + " create_time) VALUES ('OUTBOX', ?, ?, 1, ?, 'x', 'relay-1', ?)", 5_000, (ps, i) -> {
                    ps.setLong(1, i);
                    ps.setString(2, "L-" + (i * 4));
                    ps.setString(3, i % 10 == 0 ? "LEASE_EXPIRED" : "FAILED");
                    px.dialect().bindTime(ps, 4, now.minus(twoDays.multipliedBy(5_000 - i).dividedBy(5_000)));
                });
        batch("INSERT INTO " + t.relayStats() + " (instance, window_start, window_end, succeeded, latency_hist)"
                + " VALUES (?, ?, ?, 10, '10,0,0,0,0,0,0,0,0,0,0,0,0,0')", 5_000, (ps, i) -> {
                    ps.setString(1, "relay-" + (i % 3));
                    Instant start = now.minus(twoDays.multipliedBy(5_000 - i).dividedBy(5_000));
                    px.dialect().bindTime(ps, 2, start);
                    px.dialect().bindTime(ps, 3, start.plusSeconds(10));
                });
        batch("INSERT INTO " + t.adminAction() + " (action, target, filter_text, action_status, actor, reason,"
                + " create_time) VALUES ('RETRY', 'OUTBOX', ?, 'DONE', ?, 'r', ?)", 3_000, (ps, i) -> {
                    ps.setString(1, "L-" + i);
                    ps.setString(2, "actor-" + (i % 30));
                    px.dialect().bindTime(ps, 3, now.minus(twoDays.multipliedBy(3_000 - i).dividedBy(3_000)));
                });
        long firstAction = queryLong("SELECT MIN(id) FROM " + t.adminAction());
        batch("INSERT INTO " + t.adminLog() + " (table_name, event_no, action, from_status, to_status, actor, reason,"
                + " create_time, action_id) VALUES (?, ?, 'RETRY', 5, 0, 'a', 'r', ?, ?)", 6_000, (ps, i) -> {
                    ps.setString(1, t.outbox());
                    ps.setString(2, "L-" + i);
                    px.dialect().bindTime(ps, 3, now.minusSeconds(6_000 - i));
                    ps.setLong(4, firstAction + i / 2);
                });
        batch("INSERT INTO " + t.consumeLog() + " (consumer, event_no, consume_status, create_time, update_time)"
                + " VALUES (?, ?, 'DONE', ?, ?)", 6_000, (ps, i) -> {
                    ps.setString(1, "consumer-" + (i % 3));
                    ps.setString(2, "L-" + i / 3);
                    px.dialect().bindTime(ps, 3, now);
                    px.dialect().bindTime(ps, 4, now);
                });
        batch("INSERT INTO " + t.compensationLog() + " (biz_type, biz_key, action_type, compensate_status, attempts,"
                + " create_time, update_time) VALUES ('ORDER', ?, 'CANCEL', 'DONE', 1, ?, ?)", 3_000, (ps, i) -> {
                    ps.setString(1, "K-" + i);
                    px.dialect().bindTime(ps, 2, now);
                    px.dialect().bindTime(ps, 3, now);
                });
        for (String table : new String[] {t.outbox(), t.message(), t.eventAttempt(), t.relayStats(), t.adminAction(),
                t.adminLog(), t.consumeLog(), t.compensationLog(), t.outboxArchive(), t.messageArchive()}) {
            analyze(table);
        }
        ops = (JdbcOperations) px.operations(OperationsConfig.defaults());
    }

    /** A statement run {@code n} times with rows bound by {@code row}, in batches, committed. */
    private void batch(String sql, int n, RowBinder row) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                row.bind(ps, i);
                ps.addBatch();
                if (i % 1000 == 999 || i == n - 1) {
                    ps.executeBatch();
                }
            }
            c.commit();
        }
    }

    private interface RowBinder {
        void bind(PreparedStatement ps, int i) throws SQLException;
    }

    @Test
    final void theOverviewsStatementsReadAnIndex() throws Exception {
        var t = px.tables();
        Instant hourAgo = START.minus(Duration.ofHours(1));
        assertNoFullScan(t.relayStats(), ops.overview.statsSql, List.of(hourAgo));
        assertNoFullScan(t.outbox(), ops.overview.leasesSql, List.of());
        assertNoFullScan(t.eventAttempt(), ops.overview.takeoversSql, List.of(hourAgo));
        // the check itself can fail: the stats by instance alone would read the whole table
        assertThatThrownBy(() -> assertNoFullScan(t.relayStats(), "SELECT id FROM " + t.relayStats()
                + " WHERE instance = ? LIMIT 10", List.of("relay-1"))).isInstanceOf(AssertionError.class);
    }

    @Test
    final void theBlockedAggregatesStatementsReadAnIndex() throws Exception {
        var t = px.tables();
        for (String sql : ops.blocking.candidatesSql) {
            assertNoFullScan(t.outbox(), sql, List.of(0L, 200));
        }
        assertNoFullScan(t.outbox(), ops.blocking.earlierSql, List.of("ORDER", "K-100", 10_100L));
        assertNoFullScan(t.outbox(), ops.blocking.behindSql, List.of("ORDER", "K-100", 10_100L, EventDetail.WAITING_CAP));
        assertThat(ops.blockedAggregates(dev.postbox.query.PageRequest.first(20), Operator.of("v", Role.VIEWER)).items())
                .hasSize(20);
    }

    @Test
    final void theDetailStatementsReadAnIndex() throws Exception {
        var t = px.tables();
        Details d = ops.details;
        for (boolean withPayload : new boolean[] {false, true}) {
            assertNoFullScan(t.outbox(), d.byEventNoSql(EventKind.OUTBOX, false, withPayload), List.of("L-100"));
            assertNoFullScan(t.outboxArchive(), d.byEventNoSql(EventKind.OUTBOX, true, withPayload), List.of("A-100"));
            assertNoFullScan(t.message(), d.byEventNoSql(EventKind.MESSAGE, false, withPayload), List.of("ML-100"));
            assertNoFullScan(t.messageArchive(), d.byEventNoSql(EventKind.MESSAGE, true, withPayload), List.of("A-100"));
        }
        assertNoFullScan(t.eventAttempt(), d.attemptsSql, List.of("L-400", "OUTBOX"));
        assertNoFullScan(t.adminLog(), d.adminLogSql, List.of("L-400", t.outbox()));
        assertNoFullScan(t.outbox(), d.beforeSql, List.of("ORDER", "K-100", 10_100L));
        assertNoFullScan(t.outbox(), d.afterSql, List.of("ORDER", "K-100", 10_100L));
        assertNoFullScan(t.consumeLog(), d.consumptionSql(3), List.of("consumer-0", "consumer-1", "consumer-2", "L-10"));
        assertNoFullScan(t.message(), d.relatedSql.get(EventKind.OUTBOX), List.of("ORDER", "K-100"));
        assertNoFullScan(t.outbox(), d.relatedSql.get(EventKind.MESSAGE), List.of("ORDER", "K-100"));
        assertNoFullScan(t.compensationLog(), d.compensationsSql, List.of("ORDER", "K-100"));
        EventDetail detail = ops.event(EventKind.OUTBOX, "L-10", Operator.of("v", Role.VIEWER)).orElseThrow();
        assertThat(detail.consumers()).hasSize(3);
        assertThat(detail.sequence()).as("the ten events of K-10").hasSize(OUTBOX / KEYS);
    }

    @Test
    final void theAuditAndActionStatementsReadAnIndex() throws Exception {
        var t = px.tables();
        Audit a = ops.audit;
        long action = queryLong("SELECT MIN(id) FROM " + t.adminAction()) + 100;
        assertNoFullScan(t.adminLog(), a.sql.get(Audit.Driver.EVENT_NO)[0], List.of("L-10", 500));
        assertNoFullScan(t.adminLog(), a.sql.get(Audit.Driver.EVENT_NO)[1], List.of("L-10", 1_000_000L, 500));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.ACTOR)[0], List.of("actor-3", 500));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.ACTOR)[1], List.of("actor-3", action, 500));
        Instant from = START.minus(Duration.ofHours(2));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.TIME)[0], List.of(from, START, 500));
        Instant at = START.minus(Duration.ofHours(1));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.TIME)[1], List.of(from, at, at, at, action, 500));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.ALL)[0], List.of(500));
        assertNoFullScan(t.adminAction(), a.sql.get(Audit.Driver.ALL)[1], List.of(action, 500));
        assertNoFullScan(t.adminLog(), a.changesSql, List.of(action, 51));
        assertNoFullScan(t.adminLog(), a.changesAfterSql, List.of(action, 1L, 51));
        assertNoFullScan(t.outbox(), Actions.lockSql(ops.details.table(EventKind.OUTBOX), Actions.Kind.RETRY), List.of("L-50"));
        assertNoFullScan(t.message(), Actions.lockSql(ops.details.table(EventKind.MESSAGE), Actions.Kind.CANCEL),
                List.of("ML-50"));
        assertNoFullScan(t.outbox(), ops.actions.sequenceLockSql, List.of("ORDER", "K-100"));
    }
}
