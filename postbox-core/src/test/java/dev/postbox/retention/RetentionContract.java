package dev.postbox.retention;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Retention on every database: what a policy removes and what it never touches, delete and archive, the
 * run's budget, the dry-run plan.
 */
public abstract class RetentionContract extends DatabaseContract {

    private static final Duration WEEK = Duration.ofDays(7);

    @org.junit.jupiter.api.BeforeEach
    final void emptyArchives() throws SQLException {
        for (RetentionTable t : RetentionTable.values()) {
            if (t.archivable()) {
                exec("DELETE FROM " + t.archive(postbox.tables()));
            }
        }
        exec("DELETE FROM " + postbox.tables().eventAttempt());
    }

    /** Writes outbox event {@code no} of aggregate {@code aggregate}, then sets its status and age in days. */
    private void outboxRow(String no, String aggregate, OutboxStatus status, int ageDays) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", aggregate)
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").traceId("trace-" + no)
                .payload("{\"no\":\"" + no + "\"}").build()));
        age(postbox.tables().outbox(), "publish_status", status.code(), no, ageDays);
    }

    /** Sets the row's status and moves its create and update times {@code ageDays} into the past. */
    private void age(String table, String statusColumn, Object status, String eventNo, int ageDays) throws Exception {
        Instant at = DatabaseContract.START.minus(Duration.ofDays(ageDays));
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET " + statusColumn
                    + " = ?, create_time = ?, update_time = ? WHERE event_no = ?")) {
                ps.setObject(1, status);
                postbox.dialect().bindTime(ps, 2, at);
                postbox.dialect().bindTime(ps, 3, at);
                ps.setString(4, eventNo);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            return null;
        });
    }

    private List<String> eventNos(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT event_no FROM " + table + " ORDER BY id"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private Retention retention(RetentionPolicy policy) {
        return postbox.retention(policy).batchSize(3).build();
    }

    @Test
    void removesFinishedOutboxRowsPastTheirRetentionAndNeverAnUnfinishedOne() throws Exception {
        for (OutboxStatus s : OutboxStatus.values()) {
            outboxRow("old-" + s, "A-" + s, s, 40);
            outboxRow("new-" + s, "B-" + s, s, 1);
        }
        RetentionPolicy policy = RetentionPolicy.builder()
                .outbox(OutboxStatus.PUBLISHED, WEEK).outbox(OutboxStatus.CANCELLED, WEEK)
                .outbox(OutboxStatus.DEAD, Duration.ofDays(30)).build();
        try (Retention retention = retention(policy)) {
            RetentionReport report = retention.runOnce();
            assertThat(report.removed()).isEqualTo(3);
            assertThat(report.complete()).isTrue();
            assertThat(report.table(RetentionTable.OUTBOX).strategy()).isEqualTo(RetentionPolicy.Strategy.DELETE);
            assertThat(retention.runOnce().removed()).as("nothing more is due").isZero();
        }
        assertThat(eventNos(postbox.tables().outbox())).as("old unfinished rows stay, whatever their age")
                .containsExactly("old-PENDING", "new-PENDING", "old-PUBLISHING", "new-PUBLISHING",
                        "new-PUBLISHED", "old-FAILED", "new-FAILED", "new-CANCELLED", "new-DEAD");
        assertThat(count(postbox.tables().outboxArchive())).isZero();
    }

    @Test
    void rowsWithoutARuleStayWhateverTheirAge() throws Exception {
        outboxRow("dead", "A", OutboxStatus.DEAD, 400);
        outboxRow("published", "B", OutboxStatus.PUBLISHED, 400);
        try (Retention retention = retention(RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK).build())) {
            assertThat(retention.runOnce().removed()).isEqualTo(1);
        }
        assertThat(eventNos(postbox.tables().outbox())).as("DEAD is kept unless a rule names it").containsExactly("dead");
    }

    @Test
    void aDeadEventThatStillHoldsBackItsAggregateIsKept() throws Exception {
        outboxRow("held-dead", "H", OutboxStatus.DEAD, 60);
        outboxRow("held-next", "H", OutboxStatus.PENDING, 60);
        outboxRow("free-dead", "F", OutboxStatus.DEAD, 60);
        outboxRow("free-next", "F", OutboxStatus.PUBLISHED, 1);
        try (Retention retention = retention(RetentionPolicy.builder().outbox(OutboxStatus.DEAD, WEEK).build())) {
            assertThat(retention.plan().rows(RetentionTable.OUTBOX, "DEAD")).isEqualTo(1);
            assertThat(retention.runOnce().removed()).isEqualTo(1);
        }
        assertThat(eventNos(postbox.tables().outbox())).as("removing held-dead would release held-next")
                .containsExactly("held-dead", "held-next", "free-next");
    }

    @Test
    void archivingMovesEachRowWholeIntoTheArchiveTable() throws Exception {
        for (int i = 0; i < 10; i++) {
            outboxRow("P-" + i, "A" + (i % 3), i < 7 ? OutboxStatus.PUBLISHED : OutboxStatus.PENDING, 30);
        }
        Map<String, String> before = rows(postbox.tables().outbox(), "P-0");
        clock.set(START.plusSeconds(5));
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK)
                .archive(RetentionTable.OUTBOX).build();
        try (Retention retention = retention(policy)) {
            RetentionReport report = retention.runOnce();
            assertThat(report.removed()).isEqualTo(7);
            assertThat(report.table(RetentionTable.OUTBOX).strategy()).isEqualTo(RetentionPolicy.Strategy.ARCHIVE);
            assertThat(report.table(RetentionTable.OUTBOX).batches()).as("windows of 3 ids").isEqualTo(3);
        }
        String archive = postbox.tables().outboxArchive();
        assertThat(eventNos(archive)).containsExactly("P-0", "P-1", "P-2", "P-3", "P-4", "P-5", "P-6");
        assertThat(eventNos(postbox.tables().outbox())).containsExactly("P-7", "P-8", "P-9");
        Map<String, String> after = rows(archive, "P-0");
        String archivedTime = after.remove("archived_time");
        assertThat(after).as("every column as it was").isEqualTo(before);
        assertThat(archivedTime).isNotNull();
        dev.postbox.outbox.OutboxRecord found = postbox.queries().outboxArchive().byEventNo("P-3").orElseThrow();
        assertThat(found.status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(found.payload()).isEqualTo("{\"no\":\"P-3\"}");
        assertThat(postbox.queries().outbox().byEventNo("P-3")).isEmpty();
        assertThat(postbox.queries().outboxArchive().byAggregate("ORDER", "A0", dev.postbox.query.PageRequest.first(10))
                .items()).extracting(dev.postbox.outbox.OutboxRecord::eventNo).containsExactly("P-0", "P-3", "P-6");
        assertThat(postbox.queries().outboxArchive().byTraceId("trace-P-5", dev.postbox.query.PageRequest.first(10))
                .items()).extracting(dev.postbox.outbox.OutboxRecord::eventNo).containsExactly("P-5");
        assertThat(queryLong("SELECT COUNT(*) FROM " + archive + " WHERE archived_time = ?",
                java.sql.Timestamp.from(START.plusSeconds(5)))).as("stamped with the run's time").isEqualTo(7);
    }

    /** Every column of the row {@code eventNo} of {@code table}, as text, by lower-case column name. */
    private Map<String, String> rows(String table, String eventNo) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    out.put(rs.getMetaData().getColumnName(i).toLowerCase(java.util.Locale.ROOT), rs.getString(i));
                }
            }
        }
        return out;
    }

    @Test
    void aRunStopsAtItsRowBudgetAndTheNextOneResumes() throws Exception {
        for (int i = 0; i < 12; i++) {
            outboxRow("B-" + i, "A" + i, OutboxStatus.PUBLISHED, 30);
        }
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK).build();
        try (Retention retention = postbox.retention(policy).batchSize(2).maxRowsPerRun(5).build()) {
            RetentionReport first = retention.runOnce();
            assertThat(first.removed()).isEqualTo(5);
            assertThat(first.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.BUDGET);
            assertThat(first.complete()).isFalse();
            assertThat(retention.runOnce().removed()).isEqualTo(5);
            RetentionReport last = retention.runOnce();
            assertThat(last.removed()).isEqualTo(2);
            assertThat(last.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.COMPLETE);
        }
        assertThat(count(postbox.tables().outbox())).isZero();
    }

    @Test
    void theOtherTablesFollowTheirOwnRules() throws Exception {
        Instant old = START.minus(Duration.ofDays(40));
        clock.set(old);
        for (MessageStatus s : MessageStatus.values()) {
            String no = "M-" + s;
            inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo(no).eventType("ORDER_PAID")
                    .biz("ORDER", no).payload("{}").build()));
            age(postbox.tables().message(), "event_status", s.code(), no, 40);
        }
        inTx(c -> postbox.inbox().once(c, "billing", "E-old", () -> { }));
        clock.set(START.minus(Duration.ofDays(1)));
        inTx(c -> postbox.inbox().once(c, "billing", "E-new", () -> { }));
        clock.set(old);
        for (String key : List.of("done", "failed")) {
            inTx(c -> postbox.compensations().once(c, "ORDER", key, "REFUND", 3, conn -> {
                if (key.equals("failed")) {
                    throw new IllegalStateException("refund refused");
                }
                return null;
            }));
        }
        clock.set(START);
        exec("UPDATE " + postbox.tables().compensationLog() + " SET update_time = create_time");
        RetentionPolicy policy = RetentionPolicy.builder()
                .messages(MessageStatus.SUCCEEDED, WEEK).messages(MessageStatus.CANCELLED, WEEK)
                .consumeLog(Duration.ofDays(14))
                .compensations(CompensationStatus.DONE, WEEK)
                .archive(RetentionTable.MESSAGES).build();
        try (Retention retention = retention(policy)) {
            RetentionPlan plan = retention.plan();
            assertThat(plan.rows(RetentionTable.MESSAGES, "SUCCEEDED")).isEqualTo(1);
            assertThat(plan.rows(RetentionTable.MESSAGES, "CANCELLED")).isEqualTo(1);
            assertThat(plan.rows(RetentionTable.CONSUME_LOG, "ANY")).isEqualTo(1);
            assertThat(plan.rows(RetentionTable.COMPENSATIONS, "DONE")).isEqualTo(1);
            assertThat(plan.rows()).isEqualTo(4);
            assertThat(count(postbox.tables().message())).as("a plan removes nothing").isEqualTo(6);

            RetentionReport report = retention.runOnce();
            assertThat(report.table(RetentionTable.MESSAGES).removed()).isEqualTo(2);
            assertThat(report.table(RetentionTable.CONSUME_LOG).removed()).isEqualTo(1);
            assertThat(report.table(RetentionTable.COMPENSATIONS).removed()).isEqualTo(1);
        }
        assertThat(eventNos(postbox.tables().message())).containsExactly("M-PENDING", "M-PROCESSING", "M-FAILED", "M-DEAD");
        assertThat(eventNos(postbox.tables().messageArchive())).containsExactly("M-SUCCEEDED", "M-CANCELLED");
        assertThat(eventNos(postbox.tables().consumeLog())).containsExactly("E-new");
        assertThat(queryString("SELECT compensate_status FROM " + postbox.tables().compensationLog())).isEqualTo("FAILED");
    }

    @Test
    void aPlanCountsWhatARunWouldRemoveAndRemovesNothing() throws Exception {
        for (int i = 0; i < 8; i++) {
            outboxRow("Q-" + i, "A" + i, i % 2 == 0 ? OutboxStatus.PUBLISHED : OutboxStatus.CANCELLED, 10);
        }
        outboxRow("Q-young", "Y", OutboxStatus.PUBLISHED, 2);
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK)
                .outbox(OutboxStatus.CANCELLED, WEEK).build();
        try (Retention retention = retention(policy)) {
            RetentionPlan plan = retention.plan();
            assertThat(plan.rows(RetentionTable.OUTBOX, "PUBLISHED")).isEqualTo(4);
            assertThat(plan.rows(RetentionTable.OUTBOX, "CANCELLED")).isEqualTo(4);
            assertThat(plan.entries()).allSatisfy(e -> assertThat(e.estimatedBytes()).isGreaterThanOrEqualTo(-1));
            assertThat(count(postbox.tables().outbox())).isEqualTo(9);
            assertThat(retention.runOnce().removed()).isEqualTo(plan.rows());
        }
    }

    @Test
    void everyWindowIsReadByPrimaryKeyRangeNeverByAScanOfTheTable() throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            events.add(OutboxEvent.builder().eventNo("X-" + i).aggregate("ORDER", "A" + (i % 100)).eventType("ORDER_CHANGED")
                    .channel("MQ").topic("orders").payload("{\"pad\":\"" + "x".repeat(300) + "\"}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, events));
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = 2");
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK)
                .outbox(OutboxStatus.DEAD, WEEK).build();
        Sweep sweep = new Sweep(postbox.dialect(), postbox.tables(), RetentionTable.OUTBOX,
                policy.rules(RetentionTable.OUTBOX), 30);
        for (String sql : sweep.readingStatements()) {
            assertReadsByPrimaryKey(explain(sweep, sql));
        }
    }

    /** The database's plan of {@code sql} in a transaction begun as retention begins its own, parameters bound. */
    private String explain(Sweep sweep, String sql) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            sweep.begin(c, null); // as every retention transaction begins
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
                int n = ps.getParameterMetaData().getParameterCount();
                ps.setLong(1, 0);
                ps.setLong(2, 1_000);
                for (int i = 3; i <= n; i++) {
                    postbox.dialect().bindTime(ps, i, START);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            out.append(rs.getMetaData().getColumnLabel(i).toLowerCase(java.util.Locale.ROOT)).append('=')
                                    .append(rs.getString(i)).append(' ');
                        }
                        out.append('\n');
                    }
                }
            }
            c.rollback();
        }
        return out.toString();
    }

    /** Asserts that {@code plan} (this database's EXPLAIN output) reads the table by its primary key only. */
    protected abstract void assertReadsByPrimaryKey(String plan);

    @Test
    void statusTellsWhatRunsDidAndTheLastFailure() throws Exception {
        outboxRow("S-1", "A", OutboxStatus.PUBLISHED, 8);
        outboxRow("S-2", "B", OutboxStatus.PUBLISHED, 8);
        Retention retention = retention(RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK).build());
        assertThat(retention.status().lastReport()).isNull();
        RetentionReport report = retention.runOnce();
        assertThat(retention.status().lastReport()).isEqualTo(report);
        assertThat(retention.status().lastSuccess()).isNotNull();
        assertThat(retention.status().totalRemoved()).isEqualTo(2);
        assertThat(retention.status().removedByTable()).as("the attempt history follows the outbox's rule")
                .containsOnly(Map.entry(RetentionTable.OUTBOX, 2L), Map.entry(RetentionTable.ATTEMPTS, 0L));
        assertThat(retention.status().lastFailure()).isNull();
        Retention.TableSize size = retention.size(RetentionTable.OUTBOX);
        if (postbox.dialect().tableSizeSql() == null) {
            assertThat(size).isEqualTo(new Retention.TableSize(-1, -1));
        } else {
            assertThat(size.bytes()).as("heap and indexes, or -1 where the catalog keeps no bytes (H2)")
                    .matches(b -> b > 0 || (b == -1 && postbox.dialect().embedded()));
            assertThat(size.rows()).isGreaterThanOrEqualTo(0);
        }
        retention.close();
        assertThatThrownBy(retention::runOnce).isInstanceOf(RuntimeException.class);
        assertThat(retention.status().lastFailure()).isNotNull();
        assertThat(retention.status().lastFailureTime()).isEqualTo(START);
        assertThat(retention.status().lastReport()).as("the last good run is kept").isEqualTo(report);
    }

    @Test
    void oneInstanceRunsAtATimeTheOthersFindTheLeaseHeld() throws Exception {
        for (int i = 0; i < 4; i++) {
            outboxRow("L-" + i, "A" + i, OutboxStatus.PUBLISHED, 8);
        }
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK).build();
        Retention a = postbox.retention(policy).instanceId("node-a").build();
        try (Retention b = postbox.retention(policy).instanceId("node-b").build()) {
            assertThat(a.runOnce().removed()).isEqualTo(4);
            assertThat(a.leaseHolder()).hasValueSatisfying(h -> assertThat(h.instanceId()).isEqualTo("node-a"));
            outboxRow("L-late", "Z", OutboxStatus.PUBLISHED, 8);
            RetentionReport skipped = b.runOnce();
            assertThat(skipped.ran()).isFalse();
            assertThat(skipped.heldBy()).isEqualTo("node-a");
            assertThat(skipped.complete()).isFalse();
            assertThat(count(postbox.tables().outbox())).as("b removed nothing").isEqualTo(1);
            a.close(); // gives the lease back
            assertThat(b.runOnce().removed()).isEqualTo(1);
            assertThat(b.leaseHolder()).hasValueSatisfying(h -> assertThat(h.instanceId()).isEqualTo("node-b"));
        } finally {
            a.close();
        }
        assertThat(count(postbox.tables().jobLease())).isEqualTo(1);
    }

    @Test
    void startedInEveryInstanceItRunsOnScheduleInOneOfThem() throws Exception {
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WEEK).build();
        Postbox live = newPostbox(b -> b.clock(java.time.Clock.systemUTC()));
        try (Retention a = live.retention(policy).instanceId("sched-a").interval(Duration.ofSeconds(1)).batchSize(2)
                .maxRowsPerRun(3).build().start();
             Retention b = live.retention(policy).instanceId("sched-b").interval(Duration.ofSeconds(1)).batchSize(2)
                     .maxRowsPerRun(3).build().start()) {
            for (int i = 0; i < 10; i++) {
                outboxRow("T-" + i, "A" + i, OutboxStatus.PUBLISHED, 8);
            }
            dev.postbox.testing.Await.until("the scheduled runs removed every due row", Duration.ofSeconds(30),
                    // a run's status follows its last commit: wait for both
                    () -> countQuietly(postbox.tables().outbox()) == 0
                            && a.status().totalRemoved() + b.status().totalRemoved() >= 10);
            assertThat(a.status().totalRemoved() + b.status().totalRemoved()).isEqualTo(10);
            assertThat(Math.min(a.status().totalRemoved(), b.status().totalRemoved()))
                    .as("one runner while both live").isZero();
        }
    }

    private long countQuietly(String table) {
        try {
            return count(table);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** README's example, as it is written there. */
    @Test
    void theReadmeExampleRuns() throws Exception {
        outboxRow("R-1", "A", OutboxStatus.PUBLISHED, 8);
        RetentionPolicy policy = RetentionPolicy.builder()
                .outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
                .outbox(OutboxStatus.CANCELLED, Duration.ofDays(7))
                .outbox(OutboxStatus.DEAD, Duration.ofDays(90))
                .messages(MessageStatus.SUCCEEDED, Duration.ofDays(7))
                .consumeLog(Duration.ofDays(14))                  // the inbox's dedupe window
                .compensations(CompensationStatus.DONE, Duration.ofDays(30))
                .archive(RetentionTable.OUTBOX)                   // move, don't delete
                .build();
        try (Retention retention = postbox.retention(policy).build()) {
            RetentionPlan plan = retention.plan();                // what a run would remove, bytes estimated; removes nothing
            RetentionReport report = retention.runOnce();         // removes it
            assertThat(plan.rows()).isEqualTo(1);
            assertThat(report.removed()).isEqualTo(1);
        }
        assertThat(postbox.queries().outboxArchive().byEventNo("R-1")).isPresent();
    }

    @Test
    void aPolicyCannotNameAnUnfinishedStatusOrABadRetention() {
        assertThatThrownBy(() -> RetentionPolicy.builder().outbox(OutboxStatus.PENDING, WEEK))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox.PENDING"))
                .hasMessageContaining("unfinished and never removed");
        assertThatThrownBy(() -> RetentionPolicy.builder().messages(MessageStatus.PROCESSING, WEEK))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("messages.PROCESSING"));
        assertThatThrownBy(() -> RetentionPolicy.builder().compensations(CompensationStatus.RUNNING, WEEK))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("compensations.RUNNING"));
        assertThatThrownBy(() -> RetentionPolicy.builder().consumeLog(Duration.ofSeconds(-1)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("consumeLog.window"));
        assertThatThrownBy(() -> RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(4000)))
                .hasMessageContaining("at most PT87600H");
        RetentionPolicy policy = RetentionPolicy.builder().build();
        assertThatThrownBy(() -> postbox.retention(policy).batchSize(0))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("batchSize"))
                .hasMessageContaining("10000");
        assertThatThrownBy(() -> postbox.retention(policy).dutyCycle(0.01))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("dutyCycle"))
                .hasMessageContaining("between 0.05 and 1");
        assertThatThrownBy(() -> postbox.retention(policy).dutyCycle(Double.NaN))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> postbox.retention(policy).lockTimeout(Duration.ofMillis(10)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("lockTimeout"));
    }
}
