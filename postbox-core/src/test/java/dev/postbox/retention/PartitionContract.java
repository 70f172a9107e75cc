package dev.postbox.retention;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.outbox.WriteResult;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The time-partitioned outbox on every database that has one: conversion, idempotency by event_no across
 * partitions, the guard against losing a row by changing its partition, retention dropping due partitions
 * after moving out every row that must stay (also rows that changed after the check, and a detach an earlier
 * run left), the runway, the plan, the relay on a partitioned outbox.
 *
 * <p>Every test starts from an empty partitioned outbox with daily partitions from four days before the
 * database's day to two days after it ({@link #DAYS_BEFORE}, {@link #DAYS_AFTER}); the Postbox clock is set to
 * the database's.
 */
public abstract class PartitionContract extends DatabaseContract {

    static final int DAYS_BEFORE = 4;
    static final int DAYS_AFTER = 2;
    private static final Duration DAY = Duration.ofDays(1);
    /** The idempotency window the outbox is converted with: key generations of two days, from today's start. */
    static final Duration WINDOW = DAY;
    static final Duration GENERATION = Duration.ofDays(2);

    protected PartitionOps ops;
    protected Instant today;

    /** Replaces every partition of the empty partitioned outbox {@code table} by {@code ranges}. */
    protected abstract void resetPartitions(Connection c, String table, List<PartitionOps.Range> ranges) throws SQLException;

    /**
     * Moves the row {@code eventNo} to the partition of {@code partitionTime} as only a test may (the mover's
     * privilege set by hand), setting its status and its create and update times to {@code at}.
     */
    protected abstract void place(Connection c, String eventNo, Instant partitionTime, OutboxStatus status, Instant at)
            throws SQLException;

    /** A plain UPDATE that tries to change the row's partition_time without the mover's privilege. */
    protected String plainPartitionUpdate(String table) {
        return "UPDATE " + table + " SET partition_time = partition_time - INTERVAL '1' DAY WHERE event_no = ?";
    }

    @BeforeEach
    final void partitionedOutbox() throws Exception {
        ops = PartitionOps.of(postbox.dialect());
        String table = postbox.tables().outbox();
        OutboxPartitions partitions = postbox.outboxPartitions();
        partitions.convert(DAY, Duration.ofDays(DAYS_AFTER), WINDOW, null);
        assertThat(partitions.idempotencyWindow()).isEqualTo(WINDOW);
        assertThat(partitions.partitioned()).isTrue();
        try (Connection c = ds.getConnection()) {
            Instant now = new PartitionSweep(postbox.dialect(), ops, postbox.tables(), List.of()).databaseNow(c);
            today = Instant.ofEpochSecond(now.getEpochSecond() / 86_400 * 86_400);
            clock.set(now);
            exec("DELETE FROM " + table + "_key");
            exec("DELETE FROM " + postbox.tables().outboxArchive());
            resetPartitions(c, table, PartitionSweep.following(table, today.minus(Duration.ofDays(DAYS_BEFORE)), DAY,
                    today.plus(Duration.ofDays(DAYS_AFTER + 1)), 100));
        }
    }

    protected final Instant day(int offset) {
        return today.plus(Duration.ofDays(offset)).plusSeconds(3600);
    }

    private WriteResult write(String no, String aggregate) throws Exception {
        return inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", aggregate)
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").traceId("trace-" + no)
                .payload("{\"no\":\"" + no + "\"}").build()));
    }

    /** Writes {@code no} and places it {@code dayOffset} days from today with {@code status}, aged alike. */
    protected final void row(String no, String aggregate, int dayOffset, OutboxStatus status) throws Exception {
        assertThat(write(no, aggregate).inserted()).isTrue();
        inTx(c -> {
            place(c, no, day(dayOffset), status, day(dayOffset));
            return null;
        });
    }

    private List<String> partitionNames() throws SQLException {
        try (Connection c = ds.getConnection()) {
            return ops.partitions(c, postbox.tables().outbox()).stream().map(PartitionOps.Range::name).toList();
        }
    }

    /** Every column of every row but partition_time, by event_no. */
    protected final Map<String, Map<String, String>> rows() throws SQLException {
        Map<String, Map<String, String>> out = new TreeMap<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM " + postbox.tables().outbox())) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String name = md.getColumnName(i).toLowerCase(java.util.Locale.ROOT);
                    if (!name.equals("partition_time")) {
                        row.put(name, rs.getString(i));
                    }
                }
                out.put(row.get("event_no"), row);
            }
        }
        return out;
    }

    protected final Instant partitionTime(String eventNo) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT partition_time FROM " + postbox.tables().outbox() + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as(eventNo + " is in the outbox").isTrue();
                return postbox.dialect().readTime(rs, "partition_time");
            }
        }
    }

    /** The event_nos the key table knows (each live row has two key rows: its partition's and the one before). */
    private long keys() throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT COUNT(DISTINCT event_no) FROM " + PartitionOps.keyTable(postbox.tables().outbox()))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private Retention retention(RetentionPolicy policy) {
        return postbox.retention(policy).batchSize(2).partitionsAhead(Duration.ofDays(DAYS_AFTER)).build();
    }

    private static RetentionPolicy publishedAfterADay() {
        return RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, DAY).outbox(OutboxStatus.DEAD, DAY)
                .partitions(RetentionTable.OUTBOX).build();
    }

    @Test
    final void conversionKeepsEveryColumnAndIndexAndRefusesAnOutboxWithRows() throws Exception {
        Postbox plain = newPostbox(b -> b.tablePrefix("plain_"));
        plain.schema().install();
        List<String> before = columns(plain.tables().outbox());
        List<String> indexesBefore = indexColumns(plain.tables().outbox());
        inTx(c -> plain.outbox().write(c, OutboxEvent.builder().eventNo("P-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build()));
        assertThatThrownBy(() -> plain.outboxPartitions().convert(DAY, Duration.ofDays(3)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox"))
                .hasMessageContaining("holds 1 rows").hasMessageContaining("only an empty outbox");
        assertThat(plain.outboxPartitions().partitioned()).isFalse();
        assertThat(count(plain.tables().outbox())).isEqualTo(1);

        // ids continue above every id the outbox and its archive ever had
        exec("DELETE FROM " + plain.tables().outbox());
        exec("INSERT INTO " + plain.tables().outboxArchive() + " (id, event_no, aggregate_type, aggregate_id, event_type,"
                + " event_source, publish_channel, event_payload, create_time, update_time, archived_time) VALUES (5000, 'A-1',"
                + " 'ORDER', '1', 'ORDER_CHANGED', 's', 'MQ', '{}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
        assertThatThrownBy(() -> plain.outboxPartitions().convert(Duration.ofMinutes(90), Duration.ofDays(3)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("interval"));
        plain.outboxPartitions().convert(DAY, Duration.ofDays(3));
        plain.outboxPartitions().convert(DAY, Duration.ofDays(3)); // idempotent
        assertThat(plain.outboxPartitions().partitioned()).isTrue();
        List<String> after = new ArrayList<>(before);
        after.add("partition_time");
        assertThat(columns(plain.tables().outbox())).containsExactlyInAnyOrderElementsOf(after);
        assertThat(indexColumns(plain.tables().outbox())).containsAll(indexesBefore.stream()
                .filter(i -> !i.equals("(event_no)")).toList()).contains("(event_no)");
        assertThat(columns(plain.tables().outboxArchive())).contains("partition_time");
        assertThat(plain.outboxPartitions().list()).hasSizeGreaterThanOrEqualTo(4)
                .allSatisfy(p -> assertThat(Duration.between(p.from(), p.to())).isEqualTo(DAY));
        assertThat(plain.outboxPartitions().runway()).isBetween(Duration.ofDays(3), Duration.ofDays(4));
        WriteResult w = inTx(c -> plain.outbox().write(c, OutboxEvent.builder().eventNo("P-2").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build()));
        assertThat(w.inserted()).isTrue();
        assertThat(w.id()).isGreaterThan(5000);
        assertThat(plain.queries().outbox().byEventNo("P-2").orElseThrow().id()).isEqualTo(w.id());
    }

    @Test
    final void anEventNoIsADuplicateAcrossPartitionsAndOutlivesItsRow() throws Exception {
        row("E-1", "1", -2, OutboxStatus.PUBLISHED);
        assertThat(write("E-1", "1").duplicate()).as("the same event_no, now in today's partition (the generation"
                + " before)").isTrue();
        WriteResult[] batch = inTx(c -> postbox.outbox().writeAll(c, List.of(
                OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1").eventType("T").channel("MQ").topic("t")
                        .payload("{}").build(),
                OutboxEvent.builder().eventNo("E-2").aggregate("ORDER", "1").eventType("T").channel("MQ").topic("t")
                        .payload("{}").build()))).toArray(WriteResult[]::new);
        assertThat(batch[0].duplicate()).isTrue();
        assertThat(batch[1].inserted()).isTrue();
        assertThat(count(postbox.tables().outbox())).isEqualTo(2);
        assertThat(keys()).isEqualTo(2);

        try (Retention retention = retention(publishedAfterADay())) {
            RetentionReport report = retention.runOnce();
            assertThat(report.table(RetentionTable.OUTBOX).partitions()).isEqualTo(3);
        }
        assertThat(postbox.queries().outbox().byEventNo("E-1")).isEmpty();
        assertThat(keys()).as("E-1's key rows outlive its row (its generation, days -2 and -1, holds the oldest partition)")
                .isEqualTo(2);
        assertThat(write("E-1", "1").duplicate()).as("known as long as its key rows are there").isTrue();
        assertThat(write("E-2", "1").duplicate()).isTrue();
    }

    /**
     * Inserts a row of {@code eventNo} into the partition of {@code partitionTime} on {@code c} (in its transaction,
     * uncommitted) as a writer whose transaction began then would; true when it went in, false when the event_no
     * was known (PostgreSQL: skipped; elsewhere a duplicate-key error on uk_event_no).
     */
    private boolean insertAt(Connection c, String eventNo, Instant partitionTime) throws SQLException {
        boolean skips = "postgresql".equals(postbox.dialect().name());
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().outbox() + " (event_no,"
                + " aggregate_type, aggregate_id, event_type, event_source, publish_channel, event_payload, create_time, update_time,"
                + " partition_time) VALUES (?, 'ORDER', 'x', 'T', 'test', 'MQ', '{}', ?, ?, ?)"
                + (skips ? " ON CONFLICT DO NOTHING" : ""))) {
            ps.setString(1, eventNo);
            for (int i = 2; i <= 4; i++) {
                postbox.dialect().bindTime(ps, i, partitionTime);
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (postbox.dialect().isDuplicateKey(e, "uk_event_no")) {
                return false;
            }
            throw e;
        }
    }

    private boolean insertAt(String eventNo, Instant partitionTime) throws Exception {
        return inTx(c -> insertAt(c, eventNo, partitionTime));
    }

    /** The generation (of {@link #GENERATION}, from today's start) of {@code t}. */
    private long generation(Instant t) {
        return Math.floorDiv(Duration.between(today, t).toSeconds(), GENERATION.toSeconds());
    }

    /**
     * Every pair of partitions, both orders: the second write of an event_no is a duplicate exactly when the two
     * generations are the same or neighbours, so always when the writes are less than a generation (the window plus
     * a partition) apart, and never two generations apart or more.
     */
    @Test
    final void anEventNoIsKnownInEveryPartitionOfTheWindowWhicheverWasWrittenFirst() throws Exception {
        List<String> wrong = new ArrayList<>();
        int pairs = 0;
        int detected = 0;
        for (int first = -DAYS_BEFORE; first <= DAYS_AFTER; first++) {
            for (int second = -DAYS_BEFORE; second <= DAYS_AFTER; second++) {
                String no = "W" + first + "_" + second;
                Instant firstAt = day(first);
                Instant secondAt = day(second).plusSeconds(7_000);
                assertThat(insertAt(no, firstAt)).as(no + " is new").isTrue();
                boolean expectDuplicate = Math.abs(generation(secondAt) - generation(firstAt)) <= 1;
                if (Duration.between(firstAt, secondAt).abs().compareTo(GENERATION) < 0) {
                    assertThat(expectDuplicate).as("less than a generation apart").isTrue();
                }
                boolean duplicate = !insertAt(no, secondAt);
                if (duplicate != expectDuplicate) {
                    wrong.add(no + (duplicate ? " refused" : " let in"));
                }
                pairs++;
                detected += duplicate ? 1 : 0;
            }
        }
        assertThat(wrong).as("second writes decided wrongly").isEmpty();
        assertThat(detected).as("the uncovered pairs exist in this layout").isLessThan(pairs);
        assertThat(count(postbox.tables().outbox())).isEqualTo(2L * pairs - detected);
    }

    /**
     * Two writers of one event_no whose transactions began on either side of a partition boundary, neither committed
     * when the other writes: the second waits for the first and is then told the event_no is known, in either order
     * and under READ COMMITTED and REPEATABLE READ (PostgreSQL may end a REPEATABLE READ one with a serialization
     * failure instead: that transaction rolls back, nothing is written twice).
     */
    @Test
    final void writersOnEitherSideOfABoundaryMeetInTheKeyBeforeEitherCommits() throws Exception {
        Instant lateYesterday = today.minusMillis(1);
        Instant earlyToday = today;
        int[][] cases = {{0, Connection.TRANSACTION_READ_COMMITTED}, {1, Connection.TRANSACTION_READ_COMMITTED},
                {0, Connection.TRANSACTION_REPEATABLE_READ}, {1, Connection.TRANSACTION_REPEATABLE_READ}};
        java.util.concurrent.ExecutorService second = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            for (int[] k : cases) {
                String no = "B-" + k[0] + "-" + k[1];
                Instant firstAt = k[0] == 0 ? lateYesterday : earlyToday;
                Instant secondAt = k[0] == 0 ? earlyToday : lateYesterday;
                try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
                    a.setAutoCommit(false);
                    b.setAutoCommit(false);
                    b.setTransactionIsolation(k[1]);
                    try (Statement st = b.createStatement()) {
                        st.executeQuery("SELECT 1 FROM " + postbox.tables().outbox() + " WHERE 1 = 0").close(); // its snapshot
                    }
                    assertThat(insertAt(a, no, firstAt)).isTrue();
                    java.util.concurrent.Future<Object> waiting = second.submit(() -> {
                        try {
                            return insertAt(b, no, secondAt);
                        } catch (SQLException e) {
                            return e;
                        }
                    });
                    Thread.sleep(300);
                    assertThat(waiting.isDone()).as(no + ": the second writer waits for the first").isFalse();
                    a.commit();
                    Object outcome = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
                    if (outcome instanceof SQLException e) {
                        assertThat(e.getSQLState()).as(no + ": " + e.getMessage()).isEqualTo("40001");
                        assertThat(k[1]).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
                    } else {
                        assertThat(outcome).as(no + ": the second write is a duplicate").isEqualTo(false);
                    }
                    b.rollback();
                }
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM "
                        + postbox.tables().outbox() + " WHERE event_no = ?")) {
                    ps.setString(1, no);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        assertThat(rs.getLong(1)).as(no + " is in the outbox once").isEqualTo(1);
                    }
                }
            }
        } finally {
            second.shutdownNow();
        }
    }

    /**
     * Dropping partitions drops the key generations no row and no write of now can have a key in: whole generations,
     * no key row deleted one by one.
     */
    @Test
    final void theKeysLeaveInWholeGenerations() throws Exception {
        String table = postbox.tables().outbox();
        String keyTable = PartitionOps.keyTable(table);
        try (Connection c = ds.getConnection()) {
            resetPartitions(c, table, PartitionSweep.following(table, today.minus(Duration.ofDays(8)), DAY,
                    today.plus(Duration.ofDays(DAYS_AFTER + 1)), 100));
        }
        row("P-8", "1", -8, OutboxStatus.PUBLISHED);
        row("P-6", "2", -6, OutboxStatus.PUBLISHED);
        row("P-4", "3", -4, OutboxStatus.PUBLISHED);
        row("P-1", "4", -1, OutboxStatus.PUBLISHED);
        try (Retention retention = retention(publishedAfterADay())) {
            assertThat(retention.runOnce().table(RetentionTable.OUTBOX).partitions()).isEqualTo(7);
        }
        List<PartitionOps.Range> outbox;
        List<PartitionOps.Range> generations;
        try (Connection c = ds.getConnection()) {
            outbox = ops.partitions(c, table);
            generations = ops.partitions(c, keyTable);
            assertThat(ops.pendingDetach(c, keyTable, Duration.ofSeconds(5))).as("nothing left detached").isNull();
        }
        assertThat(outbox.get(0).from()).isEqualTo(today.minus(DAY));
        assertThat(generations).as("from the generation before the oldest partition's (days -2 and -1) on")
                .isEqualTo(PartitionSweep.following(keyTable, today.minus(GENERATION.multipliedBy(2)), GENERATION,
                        outbox.get(outbox.size() - 1).to(), 100));
        // generations -10, -8 and -6 are gone: P-8 and P-6 are forgotten; P-4's key row under generation -4 stays
        assertThat(keyBuckets("P-8")).isEmpty();
        assertThat(keyBuckets("P-6")).isEmpty();
        assertThat(keyBuckets("P-4")).containsExactly(today.minus(GENERATION.multipliedBy(2)));
        assertThat(keys()).isEqualTo(2);
        assertThat(insertAt("P-4", day(-1))).as("P-4 is known to a write of the generation after its own").isFalse();
        assertThat(insertAt("P-1", day(0))).as("P-1 is in the outbox").isFalse();
        assertThat(insertAt("P-6", day(0))).as("P-6 left the window").isTrue();
    }

    /**
     * Retention catching up on many due partitions: the runs of empty ones leave at once where the database merges
     * them (MariaDB: one metadata lock instead of one per partition), the others one by one, and every row that must
     * stay is moved out first.
     */
    @Test
    final void manyDuePartitionsLeaveAndEveryRowThatMustStayIsKept() throws Exception {
        String table = postbox.tables().outbox();
        try (Connection c = ds.getConnection()) {
            resetPartitions(c, table, PartitionSweep.following(table, today.minus(Duration.ofDays(8)), DAY,
                    today.plus(Duration.ofDays(DAYS_AFTER + 1)), 100));
        }
        row("P-8", "1", -8, OutboxStatus.PUBLISHED);
        row("K-5", "2", -5, OutboxStatus.PENDING);
        row("P-1", "3", -1, OutboxStatus.PUBLISHED);
        Map<String, Map<String, String>> before = rows();
        try (Retention retention = retention(publishedAfterADay())) {
            RetentionReport.TableRun run = retention.runOnce().table(RetentionTable.OUTBOX);
            assertThat(run.partitions()).as("days -8 to -2").isEqualTo(7);
            assertThat(run.stop()).isEqualTo(RetentionReport.Stop.COMPLETE);
        }
        assertThat(partitionNames()).hasSize(DAYS_AFTER + 2).first().asString().endsWith(
                PartitionSweep.partitionName("", today.minus(DAY), DAY));
        assertThat(rows()).containsOnlyKeys("K-5", "P-1");
        assertThat(rows().get("K-5")).isEqualTo(before.get("K-5"));
        assertThat(partitionTime("K-5")).isAfterOrEqualTo(today);
    }

    /** A PUBLISHED retention longer than the idempotency window is refused, by the plan and by a run. */
    @Test
    final void aRetentionLongerThanTheIdempotencyWindowIsRefused() throws Exception {
        row("P-4", "1", -4, OutboxStatus.PUBLISHED);
        RetentionPolicy tooLong = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, WINDOW.plusHours(1))
                .partitions(RetentionTable.OUTBOX).build();
        try (Retention retention = retention(tooLong)) {
            assertThatThrownBy(retention::plan).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("outbox.PUBLISHED")).hasMessageContaining("at most " + WINDOW);
            assertThatThrownBy(retention::runOnce).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("outbox.PUBLISHED"));
            assertThat(retention.status().lastFailure()).contains("at most " + WINDOW);
        }
        assertThat(rows()).containsOnlyKeys("P-4");
        assertThatThrownBy(() -> newPostbox(b -> b.tablePrefix("w_")).outboxPartitions().convert(DAY, DAY,
                Duration.ofMinutes(5), null)).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("idempotencyWindow"));
    }

    private List<Instant> keyBuckets(String eventNo) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT bucket FROM "
                + PartitionOps.keyTable(postbox.tables().outbox()) + " WHERE event_no = ? ORDER BY bucket")) {
            ps.setString(1, eventNo);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(postbox.dialect().readTime(rs, "bucket"));
                }
            }
        }
        return out;
    }

    private void exec1(String sql, String param) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            ps.executeUpdate();
        }
    }

    @Test
    final void retentionDropsDuePartitionsAndMovesOutEveryRowThatMustStay() throws Exception {
        row("P-1", "1", -3, OutboxStatus.PUBLISHED);
        row("P-2", "2", -3, OutboxStatus.PUBLISHED);
        row("P-3", "3", -4, OutboxStatus.PUBLISHED);
        row("K-PENDING", "4", -3, OutboxStatus.PENDING);
        row("K-FAILED", "5", -3, OutboxStatus.FAILED);
        row("K-PUBLISHING", "6", -3, OutboxStatus.PUBLISHING);
        row("K-CANCELLED", "7", -3, OutboxStatus.CANCELLED); // no CANCELLED rule: kept
        row("D-DEAD", "8", -3, OutboxStatus.DEAD); // DEAD after a day: removed
        row("K-DEAD-HOLDING", "9", -3, OutboxStatus.DEAD); // holds back the later PENDING event of aggregate 9
        row("K-LATER", "9", -1, OutboxStatus.PENDING);
        row("Y-1", "10", -1, OutboxStatus.PUBLISHED); // in the partition that is not due yet
        Map<String, Map<String, String>> before = rows();

        RetentionPlan plan;
        try (Retention retention = retention(publishedAfterADay())) {
            plan = retention.plan();
            assertThat(rows()).as("the plan removes nothing").isEqualTo(before);
            assertThat(plan.partitions()).extracting(RetentionPlan.Partition::name).containsExactlyElementsOf(
                    partitionNames().subList(0, 3));

            RetentionReport report = retention.runOnce();
            RetentionReport.TableRun run = report.table(RetentionTable.OUTBOX);
            assertThat(run.strategy()).isEqualTo(RetentionPolicy.Strategy.PARTITIONS);
            assertThat(run.partitions()).isEqualTo(3);
            assertThat(run.stop()).isEqualTo(RetentionReport.Stop.COMPLETE);
            assertThat(retention.status().partitionRunway()).isBetween(Duration.ofDays(DAYS_AFTER), Duration.ofDays(DAYS_AFTER + 1));
        }
        Map<String, Map<String, String>> after = rows();
        assertThat(after.keySet()).containsExactlyInAnyOrder("K-PENDING", "K-FAILED", "K-PUBLISHING", "K-CANCELLED",
                "K-DEAD-HOLDING", "K-LATER", "Y-1");
        for (String kept : after.keySet()) {
            assertThat(after.get(kept)).as(kept + ": every column but partition_time kept").isEqualTo(before.get(kept));
        }
        for (String moved : List.of("K-PENDING", "K-FAILED", "K-PUBLISHING", "K-CANCELLED", "K-DEAD-HOLDING")) {
            assertThat(partitionTime(moved)).as(moved + " moved to today's partition").isAfterOrEqualTo(today);
            assertThat(write(moved, "x").duplicate()).as(moved + "'s key moved along").isTrue();
        }
        assertThat(partitionNames()).hasSize(DAYS_BEFORE + DAYS_AFTER + 1 - 3).first().asString().endsWith(
                PartitionSweep.partitionName("", today.minus(DAY), DAY));
        assertThat(keys()).as("the removed rows' event_nos stay known: their generations are still needed").isEqualTo(11);
    }

    /** Refreshes the catalog's statistics of {@code table}. */
    protected void analyze(String table) throws SQLException {
        exec("ANALYZE " + table);
    }

    /** SQL that locks the row of event_no {@code ?} through partition {@code partition} only, as a claim in flight does. */
    protected String lockThroughPartitionSql(String table, String partition) {
        return "SELECT id FROM " + partition + " WHERE event_no = ? FOR UPDATE";
    }

    @Test
    final void aRowLockedByAnotherTransactionKeepsItsPartitionUntilTheNextRun() throws Exception {
        row("P-1", "1", -4, OutboxStatus.PUBLISHED);
        row("K-PENDING", "2", -3, OutboxStatus.PENDING);
        row("P-2", "3", -3, OutboxStatus.PUBLISHED);
        String partition = partitionNames().get(1);
        try (Connection holder = ds.getConnection(); Retention retention = postbox.retention(publishedAfterADay())
                .lockTimeout(Duration.ofMillis(500)).partitionsAhead(Duration.ofDays(DAYS_AFTER)).build()) {
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement(lockThroughPartitionSql(postbox.tables().outbox(), partition))) {
                ps.setString(1, "K-PENDING");
                assertThat(ps.executeQuery().next()).isTrue();
            }
            RetentionReport first = retention.runOnce();
            assertThat(first.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.LOCKED);
            assertThat(first.table(RetentionTable.OUTBOX).partitions()).as("at most the older partition went").isLessThanOrEqualTo(1);
            assertThat(rows()).containsKeys("K-PENDING", "P-2");
            holder.commit();
            RetentionReport second = retention.runOnce();
            assertThat(first.table(RetentionTable.OUTBOX).partitions() + second.table(RetentionTable.OUTBOX).partitions())
                    .isEqualTo(3);
            assertThat(second.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.COMPLETE);
        }
        assertThat(rows()).containsOnlyKeys("K-PENDING");
        assertThat(partitionTime("K-PENDING")).isAfterOrEqualTo(today);
    }

    @Test
    final void aLongTransactionOnTheOutboxMakesTheDropWaitForTheNextRunAndNothingIsLost() throws Exception {
        row("P-1", "1", -4, OutboxStatus.PUBLISHED);
        row("K-PENDING", "2", -4, OutboxStatus.PENDING);
        row("P-2", "3", -3, OutboxStatus.PUBLISHED);
        try (Connection holder = ds.getConnection(); Retention retention = postbox.retention(publishedAfterADay())
                .lockTimeout(Duration.ofMillis(500)).partitionsAhead(Duration.ofDays(DAYS_AFTER)).build()) {
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                st.executeQuery("SELECT count(*) FROM " + postbox.tables().outbox()).close();
            }
            RetentionReport first = retention.runOnce();
            assertThat(first.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.LOCKED);
            assertThat(first.table(RetentionTable.OUTBOX).partitions()).isZero();
            holder.commit();
            assertThat(rows()).containsKey("K-PENDING");
            RetentionReport second = retention.runOnce();
            assertThat(second.table(RetentionTable.OUTBOX).partitions()).isEqualTo(3);
            assertThat(second.table(RetentionTable.OUTBOX).stop()).isEqualTo(RetentionReport.Stop.COMPLETE);
        }
        assertThat(rows()).containsOnlyKeys("K-PENDING");
    }

    @Test
    final void aDetachedPartitionIsSearchedAgainAndFinishedByTheNextRun() throws Exception {
        row("P-1", "1", -3, OutboxStatus.PUBLISHED);
        row("K-PENDING", "2", -3, OutboxStatus.PENDING); // changed after the check, or a run that died after detaching
        Map<String, Map<String, String>> before = rows();
        String detached;
        try (Connection c = ds.getConnection()) {
            PartitionOps.Range r = ops.partitions(c, postbox.tables().outbox()).get(DAYS_BEFORE - 3);
            detached = ops.detach(c, postbox.tables().outbox(), r, Duration.ofSeconds(5));
        }
        assertThat(rows()).as("detached: the outbox no longer sees them").isEmpty();
        try (Retention retention = retention(publishedAfterADay())) {
            RetentionReport report = retention.runOnce();
            assertThat(report.table(RetentionTable.OUTBOX).partitions()).as("the detached one it finished, then the two"
                    + " due ones of days -4 and -2").isEqualTo(3);
        }
        assertThat(rows()).containsOnlyKeys("K-PENDING");
        assertThat(rows().get("K-PENDING")).isEqualTo(before.get("K-PENDING"));
        assertThat(partitionTime("K-PENDING")).isAfterOrEqualTo(today);
        try (Connection c = ds.getConnection()) {
            assertThat(ops.pendingDetach(c, postbox.tables().outbox(), Duration.ofSeconds(5))).as(detached + " was dropped").isNull();
        }
        assertThat(write("K-PENDING", "2").duplicate()).isTrue();
    }

    @Test
    final void theRelayPublishesFromEveryPartitionInAggregateOrder() throws Exception {
        row("A-1", "A", -3, OutboxStatus.PENDING);
        row("A-2", "A", -2, OutboxStatus.PENDING);
        row("A-3", "A", 0, OutboxStatus.PENDING);
        row("B-1", "B", -1, OutboxStatus.PENDING);
        List<String> published = new CopyOnWriteArrayList<>();
        Publisher publisher = records -> records.stream().map(r -> {
            published.add(r.eventNo());
            return (CompletionStage<PublishResult>) CompletableFuture.completedFuture(PublishResult.published());
        }).toList();
        try (Relay relay = postbox.relay(publisher).instanceId("relay-1").build()) {
            for (int i = 0; i < 10 && published.size() < 4; i++) {
                relay.runOnce();
            }
        }
        assertThat(published).containsExactlyInAnyOrder("A-1", "A-2", "A-3", "B-1");
        assertThat(published.stream().filter(n -> n.startsWith("A-")).toList()).containsExactly("A-1", "A-2", "A-3");
        assertThat(postbox.queries().outbox().byEventNo("A-1").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
    }

    /** README's example ("Time partitions"), as it is written there. */
    @Test
    final void theReadmeExampleRuns() throws Exception {
        Postbox postbox = newPostbox(b -> b.tablePrefix("readme_"));   // a new installation: the README converts it
        postbox.schema().install();
        OutboxPartitions partitions = postbox.outboxPartitions();
        if (!partitions.partitioned()) {
            partitions.convert(Duration.ofDays(1), Duration.ofDays(7));   // daily partitions, a week ahead; the outbox must be empty
        }
        RetentionPolicy byDay = RetentionPolicy.builder()
                .outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))      // required: it decides when a partition is due
                .outbox(OutboxStatus.DEAD, Duration.ofDays(90))
                .partitions(RetentionTable.OUTBOX)
                .build();
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo("P-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build()));
        try (Retention retention = postbox.retention(byDay).partitionsAhead(Duration.ofDays(7)).build()) {
            RetentionReport report = retention.runOnce();                 // report.table(OUTBOX).partitions(): dropped
            Duration runway = retention.status().partitionRunway();       // how far ahead the partitions reach
            assertThat(report.table(RetentionTable.OUTBOX).partitions()).as("nothing is a week old").isZero();
            assertThat(runway).isBetween(Duration.ofDays(7), Duration.ofDays(8));
        }
        assertThat(partitions.idempotencyWindow()).isEqualTo(OutboxPartitions.DEFAULT_IDEMPOTENCY_WINDOW);
        assertThat(count(postbox.tables().outbox())).isEqualTo(1);
    }

    @Test
    final void thePoliciesThatCannotWorkAreRefused() {
        assertThatThrownBy(() -> RetentionPolicy.builder().partitions(RetentionTable.CONSUME_LOG))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("consumeLog.strategy"));
        assertThatThrownBy(() -> RetentionPolicy.builder().outbox(OutboxStatus.DEAD, DAY).partitions(RetentionTable.OUTBOX).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox.PUBLISHED"));
        assertThatThrownBy(() -> postbox.retention(publishedAfterADay()).partitionsAhead(Duration.ofMinutes(5)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("partitionsAhead"));
    }

    @Test
    final void theRunwayIsKeptAndReported() throws Exception {
        try (Retention retention = postbox.retention(publishedAfterADay()).partitionsAhead(Duration.ofDays(5)).build()) {
            retention.runOnce();
            assertThat(retention.status().partitionRunway()).isBetween(Duration.ofDays(5), Duration.ofDays(6));
        }
        assertThat(postbox.outboxPartitions().runway()).isBetween(Duration.ofDays(5), Duration.ofDays(6));
        assertThat(postbox.outboxPartitions().extend(Duration.ofDays(8), Duration.ofSeconds(2)))
                .isBetween(Duration.ofDays(8), Duration.ofDays(9));
        List<OutboxPartitions.Partition> list = postbox.outboxPartitions().list();
        for (int i = 1; i < list.size(); i++) {
            assertThat(list.get(i).from()).as("contiguous").isEqualTo(list.get(i - 1).to());
        }
        row("P-1", "1", -1, OutboxStatus.PUBLISHED);
        analyze(postbox.tables().outbox());
        try (Retention retention = retention(publishedAfterADay())) {
            assertThat(retention.size(RetentionTable.OUTBOX).rows()).as("summed over the partitions").isEqualTo(1);
        }
    }

    private List<String> columns(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                out.add(rs.getMetaData().getColumnName(i).toLowerCase(java.util.Locale.ROOT));
            }
        }
        return out;
    }

    /**
     * The column lists of {@code table}'s indexes, primary key left out: {@code "(a, b)"}, followed by
     * {@code " WHERE ..."} for a partial index, so the plain and the partitioned outbox compare.
     */
    protected abstract List<String> indexColumns(String table) throws SQLException;
}
