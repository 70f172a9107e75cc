package dev.postbox.query;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Dialect;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.WriteResult;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.PostboxInternals;
import org.junit.jupiter.api.BeforeAll;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The hot read queries read an index, not the whole table, once the tables look like production:
 * {@value #ROWS} rows in each event table over {@value #KEYS} aggregates (biz ids), about 90% finished
 * history, 4% pending, 3% failed with retries due around "now", 1% in flight and 2% dead.
 *
 * <p>Each test EXPLAINs the exact SQL text the library runs (the package-private {@link Keyset} fields and
 * {@code byEventNoSql} of {@link JdbcOutboxQueries} and {@link JdbcMessageQueries}) with realistic values
 * bound, for the first page and for a later page with a cursor the query itself returned, prints every
 * plan, and runs the same query through the public API to check its answer.
 *
 * <p>The rows live in tables with their own prefix {@value #PREFIX}, installed next to the default ones
 * and loaded once per class: {@link DatabaseContract} empties the default-prefix tables before each
 * test, and loading 200,000 rows per test would be far too slow.
 *
 * <p>A binding says how its database explains a statement and what "reads index X, no full scan" looks
 * like in that plan.
 */
public abstract class IndexUsageContract extends DatabaseContract {

    protected static final String PREFIX = "load_";
    protected static final int ROWS = 100_000;
    protected static final int KEYS = 2_000;
    protected static final int PAGE = 100;
    private static final int BATCH = 500;
    private static final int API_BATCHES = 2;
    private static final Duration BATCH_STEP = Duration.ofMinutes(30);
    private static final String[] KEY_TYPES = {"ORDER", "PAYMENT", "SHIPMENT", "REFUND"};
    private static final String[] EVENT_TYPES = {"CREATED", "PAID", "SHIPPED", "COMPLETED"};

    /** The two event tables. */
    protected enum EventTable { OUTBOX, MESSAGE }

    /** The queries under test; {@code BY_KEY} is by-aggregate on the outbox and by-biz on the message table. */
    protected enum HotQuery { PENDING, DUE_RETRIES, BY_KEY, BY_EVENT_NO }

    /**
     * One EXPLAIN output.
     *
     * @param label what kind of plan this is (a binding may return several per statement)
     * @param text  the plan as printed
     * @param rows  the result rows of the EXPLAIN statement, keyed by lower-case column label
     */
    protected record Plan(String label, String text, List<Map<String, String>> rows) {
    }

    // ---- what a binding supplies ---------------------------------------------------------------------

    /** The indexes any one of which serves {@code query} on {@code tableName} (the physical name). */
    protected abstract List<String> servingIndexes(EventTable table, String tableName, HotQuery query);

    /** The statement that refreshes the optimizer statistics of {@code tableName}. */
    protected abstract String refreshStatisticsSql(String tableName);

    /** Runs after the bulk status updates, before the statistics are refreshed; by default nothing. */
    protected void settleAfterUpdates() throws Exception {
    }

    /**
     * Asserts that {@code plan} reads {@code tableName} through one of {@code indexes} and never scans
     * the whole table; {@code what} names the query in the failure message.
     */
    protected abstract void assertReadsIndex(String what, String tableName, Plan plan, List<String> indexes);

    /** The plans of {@code sql} with {@code params} bound; by default one plain {@code EXPLAIN}. */
    protected List<Plan> explain(Connection c, String sql, List<Object> params) throws SQLException {
        return List.of(explainWith(c, "EXPLAIN " + sql, params, "plan"));
    }

    // ---- fixture ---------------------------------------------------------------------------------------

    /** A stored row of either table, as far as these queries care. */
    protected record Row(long id, String eventNo, int status, String keyType, String keyId, Instant nextRetryTime) {
        static Row of(OutboxRecord r) {
            return new Row(r.id(), r.eventNo(), r.status().code(), r.aggregateType(), r.aggregateId(), r.nextRetryTime());
        }

        static Row of(MessageRecord r) {
            return new Row(r.id(), r.eventNo(), r.status().code(), r.bizType(), r.bizId(), r.nextRetryTime());
        }
    }

    private interface ByKey {
        Page<Row> page(String type, String id, PageRequest page);
    }

    /** One event table: its SQL as the library builds it, and the same queries through the public API. */
    private record Side(EventTable table, String name, String statusColumn, String keyTypeColumn, String keyIdColumn,
                        String eventNoPrefix, Keyset<?> pending, Keyset<?> dueRetries, Keyset<?> byKey,
                        String byEventNoSql, Function<PageRequest, Page<Row>> pendingApi,
                        Function<PageRequest, Page<Row>> dueRetriesApi, ByKey byKeyApi,
                        Function<String, Optional<Row>> byEventNoApi) {
    }

    private Postbox loaded;
    private Side outbox;
    private Side message;

    @BeforeAll
    final void loadEventTables() throws Exception {
        loaded = newPostbox(b -> b.tablePrefix(PREFIX));
        loaded.schema().install();
        JdbcOutboxQueries oq = new JdbcOutboxQueries(PostboxInternals.settings(loaded));
        JdbcMessageQueries mq = new JdbcMessageQueries(PostboxInternals.settings(loaded));
        OutboxQueries oapi = loaded.queries().outbox();
        MessageQueries mapi = loaded.queries().messages();
        outbox = new Side(EventTable.OUTBOX, loaded.tables().outbox(), "publish_status", "aggregate_type",
                "aggregate_id", "OUT-", oq.pending, oq.dueRetries, oq.byAggregate, oq.byEventNoSql,
                p -> map(oapi.pending(p), Row::of), p -> map(oapi.dueRetries(p), Row::of),
                (type, id, p) -> map(oapi.byAggregate(type, id, p), Row::of),
                no -> oapi.byEventNo(no).map(Row::of));
        message = new Side(EventTable.MESSAGE, loaded.tables().message(), "event_status", "biz_type", "biz_id",
                "MSG-", mq.pending, mq.dueRetries, mq.byBiz, mq.byEventNoSql,
                p -> map(mapi.pending(p), Row::of), p -> map(mapi.dueRetries(p), Row::of),
                (type, id, p) -> map(mapi.byBiz(type, id, p), Row::of),
                no -> mapi.byEventNo(no).map(Row::of));

        long started = System.nanoTime();
        loadOutbox();
        long outboxLoaded = System.nanoTime();
        loadMessages();
        long messagesLoaded = System.nanoTime();
        clock.set(START);
        shapeHistory(outbox, "published_time");
        shapeHistory(message, "success_time");
        settleAfterUpdates();
        for (Side side : sides()) {
            exec(refreshStatisticsSql(side.name()));
        }
        long done = System.nanoTime();
        System.out.printf(Locale.ROOT, "[%s] loaded %,d rows into %s in %d ms (writeAll), %,d rows into %s in %d ms"
                        + " (bulk INSERT + create()), statuses + statistics in %d ms%n",
                db.kind(), count(outbox.name()), outbox.name(), (outboxLoaded - started) / 1_000_000,
                count(message.name()), message.name(), (messagesLoaded - outboxLoaded) / 1_000_000,
                (done - messagesLoaded) / 1_000_000);
        for (Side side : sides()) {
            printStatusCounts(side);
        }
    }

    private static <R> Page<Row> map(Page<R> page, Function<R, Row> f) {
        return new Page<>(page.items().stream().map(f).toList(), page.nextCursor());
    }

    private List<Side> sides() {
        return List.of(outbox, message);
    }

    private static String keyType(int key) {
        return KEY_TYPES[key % KEY_TYPES.length];
    }

    private static String keyId(int key) {
        return "K-" + key;
    }

    private static String eventType(int n) {
        return EVENT_TYPES[(n / KEYS) % EVENT_TYPES.length];
    }

    private static String payload(int n, int key) {
        return "{\"seq\":" + n + ",\"key\":\"" + keyId(key) + "\",\"amount\":" + (n % 9973) + ",\"currency\":\"CNY\"}";
    }

    /** 200 batches of 500 events, through the public writeAll, the clock stepping 30 minutes a batch. */
    private void loadOutbox() throws Exception {
        int batches = ROWS / BATCH;
        inTx(c -> {
            for (int b = 0; b < batches; b++) {
                clock.set(START.minus(BATCH_STEP.multipliedBy(batches - b)));
                List<OutboxEvent> events = new ArrayList<>(BATCH);
                for (int n = b * BATCH; n < (b + 1) * BATCH; n++) {
                    int key = n % KEYS;
                    events.add(OutboxEvent.builder()
                            .eventNo(outbox.eventNoPrefix() + n)
                            .aggregate(keyType(key), keyId(key))
                            .eventType(keyType(key) + "_" + eventType(n))
                            .channel("MQ").topic("biz.event").routingKey(keyType(key).toLowerCase(Locale.ROOT))
                            .payload(payload(n, key))
                            .traceId("trace-o-" + n)
                            .build());
                }
                List<WriteResult> results = loaded.outbox().writeAll(c, events);
                assertThat(results).allMatch(WriteResult::inserted);
            }
            return null;
        });
    }

    /**
     * The same shape for message events: multi-row INSERTs written here for speed (one create() per row
     * would dominate the run time), the newest {@value #API_BATCHES} batches through the public create().
     */
    private void loadMessages() throws Exception {
        Dialect d = loaded.dialect();
        String tuple = "(?, ?, ?, ?, ?, " + d.jsonParameter() + ", 0, 0, 3, ?, 0, 0, ?, ?)";
        String sql = "INSERT INTO " + message.name() + " (event_no, event_type, biz_type, biz_id, event_source,"
                + " event_payload, event_status, retry_count, max_retry_count, trace_id, version, deleted,"
                + " create_time, update_time) VALUES " + String.join(", ", java.util.Collections.nCopies(BATCH, tuple));
        int batches = ROWS / BATCH;
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int b = 0; b < batches; b++) {
                    clock.set(START.minus(BATCH_STEP.multipliedBy(batches - b)));
                    Instant now = PostboxInternals.settings(loaded).now();
                    if (b >= batches - API_BATCHES) {
                        for (int n = b * BATCH; n < (b + 1) * BATCH; n++) {
                            int key = n % KEYS;
                            WriteResult r = loaded.messages().create(c, MessageEvent.builder()
                                    .eventNo(message.eventNoPrefix() + n).eventType(keyType(key) + "_" + eventType(n))
                                    .biz(keyType(key), keyId(key)).payload(payload(n, key)).traceId("trace-m-" + n)
                                    .build());
                            assertThat(r.inserted()).isTrue();
                        }
                        continue;
                    }
                    int i = 1;
                    for (int n = b * BATCH; n < (b + 1) * BATCH; n++) {
                        int key = n % KEYS;
                        ps.setString(i++, message.eventNoPrefix() + n);
                        ps.setString(i++, keyType(key) + "_" + eventType(n));
                        ps.setString(i++, keyType(key));
                        ps.setString(i++, keyId(key));
                        ps.setString(i++, "test-service");
                        d.bindJson(ps, i++, payload(n, key));
                        ps.setString(i++, "trace-m-" + n);
                        d.bindTime(ps, i++, now);
                        d.bindTime(ps, i++, now);
                    }
                    assertThat(ps.executeUpdate()).isEqualTo(BATCH);
                }
            }
            return null;
        });
    }

    /**
     * Statuses by {@code MOD(id, 100)}: 0-3 pending, 4-6 failed, 7 in flight, 8-9 dead, 10-99 finished.
     * Failed rows then get one of 60 retry times, 30 seconds apart from 14m45s before START to 14m45s
     * after it, not in id order, so exactly half are due (about 50 rows share each time, which exercises
     * the id tie-breaker); half of the in-flight rows hold an expired lease (outbox) or went stale
     * (message). Per-row values go through a JDBC batch keyed by id, so that they do not depend on how the
     * database numbered the rows.
     */
    private void shapeHistory(Side side, String doneTimeColumn) throws Exception {
        String t = side.name();
        String status = side.statusColumn();
        inTx(c -> {
            update(c, "UPDATE " + t + " SET " + status + " = 2, " + doneTimeColumn + " = create_time, update_time = create_time"
                    + " WHERE MOD(id, 100) >= 10");
            update(c, "UPDATE " + t + " SET " + status + " = 5, retry_count = max_retry_count,"
                    + " fail_reason = 'retries exhausted', update_time = ? WHERE MOD(id, 100) IN (8, 9)", START.minusSeconds(3600));
            update(c, "UPDATE " + t + " SET " + status + " = 3, retry_count = 1 + MOD(id, 3), fail_reason = 'broker timeout',"
                    + " update_time = ? WHERE MOD(id, 100) BETWEEN 4 AND 6", START.minusSeconds(600));
            update(c, "UPDATE " + t + " SET " + status + " = 1, update_time = ? WHERE MOD(id, 100) = 7", START.minusSeconds(180));
            perRow(c, side, 3, "UPDATE " + t + " SET next_retry_time = ? WHERE id = ?",
                    i -> START.plusSeconds(30L * ((i * 7) % 60 - 30) + 15));
            if (side.table() == EventTable.OUTBOX) {
                perRow(c, side, 1, "UPDATE " + t + " SET locked_by = 'relay-1', last_publish_time = update_time,"
                        + " lock_until = ? WHERE id = ?", i -> i % 2 == 0 ? START.minusSeconds(120) : START.plusSeconds(60));
            } else {
                perRow(c, side, 1, "UPDATE " + t + " SET last_handle_time = ? WHERE id = ?",
                        i -> i % 2 == 0 ? START.minusSeconds(900) : START.minusSeconds(10));
            }
            return null;
        });
    }

    /** Sets one time per row of {@code status}, the i-th row by id getting {@code time(i)}. */
    private void perRow(Connection c, Side side, int status, String sql, java.util.function.IntFunction<Instant> time)
            throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM " + side.name()
                + " WHERE " + side.statusColumn() + " = " + status + " ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < ids.size(); i++) {
                loaded.dialect().bindTime(ps, 1, time.apply(i));
                ps.setLong(2, ids.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private void update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, List.of(params));
            ps.executeUpdate();
        }
    }

    private void printStatusCounts(Side side) throws SQLException {
        Map<Integer, Long> counts = new LinkedHashMap<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + side.statusColumn() + ", COUNT(*) FROM " + side.name()
                     + " GROUP BY " + side.statusColumn() + " ORDER BY " + side.statusColumn())) {
            while (rs.next()) {
                counts.put(rs.getInt(1), rs.getLong(2));
            }
        }
        String retrySpread;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT MIN(next_retry_time) AS lo, MAX(next_retry_time) AS hi, COUNT(next_retry_time)"
                     + " FROM " + side.name() + " WHERE " + side.statusColumn() + " = 3")) {
            rs.next();
            retrySpread = loaded.dialect().readTime(rs, "lo") + ".." + loaded.dialect().readTime(rs, "hi") + " (" + rs.getLong(3) + " set)";
        }
        System.out.printf(Locale.ROOT, "[%s] %s rows by status: %s; failed rows retry at %s, due at %s: %d%n", db.kind(),
                side.name(), counts, retrySpread, START, dueCount(side));
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(ROWS);
        assertThat(counts.get(2)).as("finished history").isBetween(ROWS * 85L / 100, ROWS * 95L / 100);
        assertThat(counts.get(0)).as("pending").isBetween(ROWS * 3L / 100, ROWS * 5L / 100);
        assertThat(counts.get(3)).as("failed").isBetween(ROWS * 2L / 100, ROWS * 4L / 100);
    }

    private long dueCount(Side side) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM "
                + side.name() + " WHERE " + side.statusColumn() + " = 3 AND deleted = 0 AND next_retry_time <= ?")) {
            bind(ps, List.of(START));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---- the queries ----------------------------------------------------------------------------------

    @Test
    final void pendingQueryReadsAnIndex() throws Exception {
        Failures failures = new Failures();
        for (Side side : sides()) {
            Page<Row> first = side.pendingApi().apply(PageRequest.first(PAGE));
            Page<Row> second = side.pendingApi().apply(first.next(PAGE));
            List<Long> ids = new ArrayList<>();
            first.items().forEach(r -> ids.add(r.id()));
            second.items().forEach(r -> ids.add(r.id()));
            failures.check(side.name() + " pending through the API", () -> {
                assertThat(first.items()).hasSize(PAGE).allMatch(r -> r.status() == 0);
                assertThat(second.items()).hasSize(PAGE).allMatch(r -> r.status() == 0);
                assertThat(ids).isEqualTo(referenceIds("SELECT id FROM " + side.name() + " WHERE "
                        + side.statusColumn() + " = 0 ORDER BY id LIMIT " + 2 * PAGE));
            });
            long cursor = Long.parseLong(first.nextCursor());
            explainAndCheck(failures, side, HotQuery.PENDING, "pending, first page",
                    side.pending().sql(false), List.of(PAGE + 1));
            explainAndCheck(failures, side, HotQuery.PENDING, "pending, page after id " + cursor,
                    side.pending().sql(true), List.of(cursor, PAGE + 1));
        }
        failures.throwIfAny();
    }

    @Test
    final void dueRetryQueryReadsAnIndex() throws Exception {
        Failures failures = new Failures();
        Instant now = PostboxInternals.settings(loaded).now();
        for (Side side : sides()) {
            Page<Row> first = side.dueRetriesApi().apply(PageRequest.first(PAGE));
            List<Row> all = new ArrayList<>(first.items());
            for (Page<Row> p = first; p.hasNext(); ) {
                p = side.dueRetriesApi().apply(p.next(PAGE));
                all.addAll(p.items());
            }
            long due = dueCount(side);
            failures.check(side.name() + " due retries through the API", () -> {
                assertThat(due).as("due rows in the data").isGreaterThan(ROWS / 100);
                assertThat(first.items()).hasSize(PAGE);
                assertThat(all).hasSize((int) due)
                        .allMatch(r -> r.status() == 3 && !r.nextRetryTime().isAfter(now));
                assertThat(all).isSortedAccordingTo(Comparator.comparing(Row::nextRetryTime).thenComparing(Row::id));
                assertThat(all.stream().map(Row::id).distinct().count()).isEqualTo(due);
            });
            String[] cursor = first.nextCursor().split(":");
            Instant after = Instant.ofEpochMilli(Long.parseLong(cursor[0]));
            long afterId = Long.parseLong(cursor[1]);
            explainAndCheck(failures, side, HotQuery.DUE_RETRIES, "due retries, first page",
                    side.dueRetries().sql(false), List.of(now, PAGE + 1));
            explainAndCheck(failures, side, HotQuery.DUE_RETRIES, "due retries, page after " + after + "/" + afterId,
                    side.dueRetries().sql(true), List.of(now, after, after, after, afterId, PAGE + 1));
        }
        failures.throwIfAny();
    }

    @Test
    final void byAggregateAndByBizQueriesReadAnIndex() throws Exception {
        Failures failures = new Failures();
        int key = 1234;
        String type = keyType(key);
        String id = keyId(key);
        int limit = 20;
        for (Side side : sides()) {
            Page<Row> first = side.byKeyApi().page(type, id, PageRequest.first(limit));
            List<Row> all = new ArrayList<>(first.items());
            for (Page<Row> p = first; p.hasNext(); ) {
                p = side.byKeyApi().page(type, id, p.next(limit));
                all.addAll(p.items());
            }
            List<Long> ids = all.stream().map(Row::id).toList();
            failures.check(side.name() + " by " + side.keyTypeColumn() + "/" + side.keyIdColumn() + " through the API", () -> {
                assertThat(first.items()).hasSize(limit);
                assertThat(all).hasSize(ROWS / KEYS)
                        .allMatch(r -> r.keyType().equals(type) && r.keyId().equals(id));
                assertThat(ids).isEqualTo(referenceIds("SELECT id FROM " + side.name() + " WHERE "
                        + side.keyTypeColumn() + " = '" + type + "' AND " + side.keyIdColumn() + " = '" + id + "' ORDER BY id"));
            });
            long cursor = Long.parseLong(first.nextCursor());
            String what = side.table() == EventTable.OUTBOX ? "by aggregate" : "by biz";
            explainAndCheck(failures, side, HotQuery.BY_KEY, what + " " + type + "/" + id + ", first page",
                    side.byKey().sql(false), List.of(type, id, limit + 1));
            explainAndCheck(failures, side, HotQuery.BY_KEY, what + " " + type + "/" + id + ", page after id " + cursor,
                    side.byKey().sql(true), List.of(type, id, cursor, limit + 1));
        }
        failures.throwIfAny();
    }

    @Test
    final void byEventNoQueryReadsAnIndex() throws Exception {
        Failures failures = new Failures();
        for (Side side : sides()) {
            String eventNo = side.eventNoPrefix() + 54_321;
            Optional<Row> found = side.byEventNoApi().apply(eventNo);
            Optional<Row> missing = side.byEventNoApi().apply(side.eventNoPrefix() + "no-such-event");
            failures.check(side.name() + " by event_no through the API", () -> {
                assertThat(found).isPresent();
                assertThat(found.get().eventNo()).isEqualTo(eventNo);
                assertThat(found.get().keyId()).isEqualTo(keyId(54_321 % KEYS));
                assertThat(missing).isEmpty();
            });
            explainAndCheck(failures, side, HotQuery.BY_EVENT_NO, "by event_no " + eventNo,
                    side.byEventNoSql(), List.of(eventNo));
        }
        failures.throwIfAny();
    }

    // ---- helpers -------------------------------------------------------------------------------------

    private void explainAndCheck(Failures failures, Side side, HotQuery query, String what, String sql,
                                 List<Object> params) throws SQLException {
        String name = side.name() + " " + what;
        List<String> indexes = servingIndexes(side.table(), side.name(), query);
        List<Plan> plans;
        try (Connection c = ds.getConnection()) {
            plans = explain(c, sql, params);
        }
        StringBuilder out = new StringBuilder()
                .append("=== [").append(db.kind()).append("] ").append(name).append(" ===\n")
                .append("SQL:    ").append(sql).append('\n')
                .append("params: ").append(params).append('\n')
                .append("expect: one of ").append(indexes).append(", no full scan\n");
        for (Plan plan : plans) {
            out.append("--- ").append(plan.label()).append(" ---\n").append(plan.text()).append('\n');
        }
        System.out.println(out);
        for (Plan plan : plans) {
            failures.check(name + " (" + plan.label() + ")",
                    () -> assertReadsIndex(name + " (" + plan.label() + ")", side.name(), plan, indexes));
        }
    }

    private List<Long> referenceIds(String sql) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    /** Binds parameters as the library does: instants through the dialect, the rest by their Java type. */
    protected final void bind(PreparedStatement ps, List<Object> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) {
            Object p = params.get(i);
            if (p instanceof Instant t) {
                loaded.dialect().bindTime(ps, i + 1, t);
            } else if (p instanceof Long l) {
                ps.setLong(i + 1, l);
            } else if (p instanceof Integer n) {
                ps.setInt(i + 1, n);
            } else if (p instanceof String s) {
                ps.setString(i + 1, s);
            } else {
                throw new IllegalArgumentException("unsupported parameter " + p);
            }
        }
    }

    /** Runs {@code explainSql} with {@code params} bound and collects its result. */
    protected final Plan explainWith(Connection c, String explainSql, List<Object> params, String label)
            throws SQLException {
        List<Map<String, String>> rows = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(explainSql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                int n = meta.getColumnCount();
                if (n > 1) {
                    List<String> header = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        header.add(meta.getColumnLabel(i));
                    }
                    text.append(String.join(" | ", header));
                }
                while (rs.next()) {
                    Map<String, String> row = new LinkedHashMap<>();
                    List<String> values = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        String v = rs.getString(i);
                        row.put(meta.getColumnLabel(i).toLowerCase(Locale.ROOT), v);
                        values.add(String.valueOf(v));
                    }
                    rows.add(row);
                    if (!text.isEmpty()) {
                        text.append('\n');
                    }
                    text.append(String.join(" | ", values));
                }
            }
        }
        return new Plan(label, text.toString(), rows);
    }

    /** Collects failed checks so that every plan is printed and every failure is named. */
    private static final class Failures {
        private final List<String> messages = new ArrayList<>();

        interface Check {
            void run() throws Exception;
        }

        void check(String what, Check check) {
            try {
                check.run();
            } catch (AssertionError | Exception e) {
                messages.add(what + ":\n" + e.getMessage());
            }
        }

        void throwIfAny() {
            if (!messages.isEmpty()) {
                fail(messages.size() + " check(s) failed:\n\n" + String.join("\n\n", messages));
            }
        }
    }
}
