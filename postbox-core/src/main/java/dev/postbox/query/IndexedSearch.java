package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The search engine {@link OutboxSearch} and {@link MessageSearch} share, bounded however large the table is.
 * One condition <em>drives</em> the search: its index is read in order, newest first, a chunk at a time; the
 * other conditions are checked on the rows read. The drivers, in the order one is chosen: event_no; the key (with
 * its type, or by the id alone: then for each key type found, an index probe); the trace id; statuses without the
 * successful one (the backlog and DEAD are small); the event type and the topic (newest first by creation time,
 * within the time range); a creation time range; statuses with the successful one. A search with none of them
 * would read the whole table and is refused. A page reads at most {@link OutboxSearch#MAX_EXAMINED} rows of its
 * driver; when they hold fewer matches than asked, the page says so and its cursor continues after the last row
 * read. Thread-safe.
 */
final class IndexedSearch {

    private static final int CHUNK = 500;
    private static final int MAX_KEY_TYPES = 200;
    private static final long TYPES_TTL_NANOS = 60_000_000_000L;

    /** What drives a search: which index is read, in which order. */
    enum By { EVENT_NO, KEY, TRACE, STATUS, TYPE, TOPIC, CREATED }

    /**
     * The columns of one event table a search reads.
     *
     * @param keyName    the key's name in the language and in errors ({@code aggregate}, {@code biz})
     * @param routes     whether the table has topic and channel columns
     * @param successful the code of its successful status (PUBLISHED, SUCCEEDED), the one status that grows forever
     */
    record Table(String name, String keyName, String keyTypeColumn, String keyIdColumn, String statusColumn,
                 boolean routes, int successful) {

        String lightColumns() {
            return "id, event_no, " + keyTypeColumn + ", " + keyIdColumn + ", event_type, " + statusColumn
                    + ", retry_count, fail_reason, trace_id, create_time" + (routes ? ", publish_channel, topic" : "");
        }
    }

    /** The conditions of a search on either table; null (or empty statuses) is "any". */
    record Criteria(String eventNo, String keyType, String keyId, String traceId, String eventType,
                    Set<Integer> statuses, String topic, String channel, Instant from, Instant before, String error,
                    Integer minAttempts) {
    }

    /** A row as far as the conditions need it; channel and topic are null in the message table. */
    record Light(long id, String eventNo, String keyType, String keyId, String eventType, int status, int retryCount,
                 String failReason, String traceId, Instant createTime, String channel, String topic) {
    }

    /**
     * The matches of one page (whole rows), in the driver's order, and where the next page starts.
     *
     * @param complete false when the page stopped at the examined limit before it was full
     */
    record Found<R>(List<R> items, String nextCursor, int examined, boolean complete, By driver) {
    }

    /**
     * How a search reads: one keyset statement, or for several statuses one per status (each in the order of its
     * own index range), merged by id.
     */
    private record Plan(By driver, List<Keyset<Light>> branches, Object[] params) {
        Keyset<Light> keyset() {
            return branches.get(0);
        }
    }

    private final Settings s;
    private final Table table;
    private final String what;
    private volatile List<String> keyTypes;
    private volatile long keyTypesRead;

    /** @param what names the search in errors ("outbox search") */
    IndexedSearch(Settings settings, Table table, String what) {
        this.s = settings;
        this.table = table;
        this.what = what;
    }

    /**
     * One page of the rows matching {@code c}, read whole as {@code columns} by {@code mapper}; a search by key id
     * alone that finds nothing on its first page reads the key types again (one written since may be missing).
     */
    <R> Found<R> search(Criteria c, PageRequest page, java.time.Duration timeLimit, String columns,
                        Keyset.Mapper<R> mapper, ToLongFunction<R> idOf) {
        Plan plan = plan(c, keyTypes(c, false));
        Found<Light> found = run(plan, c, page, timeLimit);
        if (found.items().isEmpty() && page.after() == null && plan.driver() == By.KEY && c.keyType() == null
                && System.nanoTime() - keyTypesRead > 1_000_000_000L) {
            found = run(plan(c, keyTypes(c, true)), c, page, timeLimit);
        }
        return new Found<>(full(found.items(), columns, mapper, idOf), found.nextCursor(), found.examined(),
                found.complete(), found.driver());
    }

    /** The driving SELECT of {@code c} (first page), for EXPLAIN in tests. */
    String drivingSql(Criteria c) {
        return plan(c, keyTypes(c, true)).keyset().sql(false);
    }

    /** The driver for {@code c}; throws when none applies. */
    By choose(Criteria c) {
        if (c.eventNo() != null) {
            return By.EVENT_NO;
        }
        if (c.keyId() != null) {
            return By.KEY;
        }
        if (c.traceId() != null) {
            return By.TRACE;
        }
        if (!c.statuses().isEmpty() && !c.statuses().contains(table.successful())) {
            return By.STATUS;
        }
        if (c.eventType() != null) {
            return By.TYPE;
        }
        if (c.topic() != null) {
            return By.TOPIC;
        }
        if (c.from() != null || c.before() != null) {
            return By.CREATED;
        }
        if (!c.statuses().isEmpty()) {
            return By.STATUS;
        }
        throw new ValidationException("query", "needs a condition Postbox can find through an index: "
                + (table.routes() ? "an aggregate id, event_no:, trace:, status:, type:, topic: or a time range"
                + " (after:/before:); channel:, error: and attempts>= only narrow such a search"
                : "a business id, event_no:, trace:, status:, type: or a time range (after:/before:); error: and"
                + " attempts>= only narrow such a search") + " (alone they would read the whole table)");
    }

    private Plan plan(Criteria c, List<String> types) {
        By driver = choose(c);
        List<Object> params = new ArrayList<>();
        String filter;
        String prefix = null;
        String time = null;
        String from = table.name();
        switch (driver) {
            case EVENT_NO -> {
                filter = "event_no = ?";
                params.add(c.eventNo());
            }
            case KEY -> {
                List<String> t = c.keyType() != null ? List.of(c.keyType()) : types.isEmpty() ? List.of("") : types;
                filter = table.keyTypeColumn() + " IN (" + String.join(", ", Collections.nCopies(t.size(), "?")) + ") AND "
                        + table.keyIdColumn() + " = ?";
                params.addAll(t);
                params.add(c.keyId());
                prefix = t.size() == 1 ? Keyset.pinned(s.dialect(), table.keyTypeColumn() + ", " + table.keyIdColumn()) : null;
            }
            case TRACE -> {
                filter = "trace_id = ?";
                params.add(c.traceId());
            }
            case STATUS -> {
                // one statement per status, each reading its own range of the status index newest first, merged
                // by id: an IN list over several statuses is one range no index gives in id order, and both
                // PostgreSQL and MariaDB sorted every row of it (status:failed,dead: 300-600 ms a page at 5 M rows)
                List<Keyset<Light>> branches = new ArrayList<>();
                for (int code : c.statuses().stream().sorted().toList()) {
                    branches.add(Keyset.byIdDescending(table.lightColumns(), table.name()
                                    + s.dialect().forceIndex("idx_status_id"), "deleted = 0 AND " + table.statusColumn()
                                    + " = " + code, table.statusColumn(), this::light, Light::id));
                }
                return new Plan(driver, branches, params.toArray());
            }
            case TYPE, TOPIC, CREATED -> {
                time = "create_time";
                StringBuilder f = new StringBuilder();
                if (driver == By.TYPE) {
                    f.append("event_type = ?");
                    params.add(c.eventType());
                    prefix = Keyset.pinned(s.dialect(), "event_type");
                } else if (driver == By.TOPIC) {
                    f.append("topic = ?");
                    params.add(c.topic());
                    prefix = Keyset.pinned(s.dialect(), "topic");
                }
                if (c.from() != null) {
                    f.append(f.isEmpty() ? "" : " AND ").append("create_time >= ?");
                    params.add(c.from());
                }
                if (c.before() != null) {
                    f.append(f.isEmpty() ? "" : " AND ").append("create_time < ?");
                    params.add(c.before());
                }
                filter = f.toString();
            }
            default -> throw new IllegalStateException(driver.name());
        }
        String columns = table.lightColumns();
        Keyset<Light> keyset = time == null
                ? Keyset.byIdDescending(columns, from, "deleted = 0 AND " + filter, prefix, this::light, Light::id)
                : Keyset.byTime(columns, from, "deleted = 0 AND " + filter, prefix, time, true, this::light, Light::id,
                        Light::createTime);
        return new Plan(driver, List.of(keyset), params.toArray());
    }

    /** Reads chunks of the driving index until the page is full, MAX_EXAMINED rows were read or {@code timeLimit} passed. */
    private Found<Light> run(Plan plan, Criteria c, PageRequest page, java.time.Duration timeLimit) {
        List<Light> found = new ArrayList<>();
        String cursor = page.after();
        int examined = 0;
        String lastRead = null;
        boolean exhausted = false;
        long deadline = System.nanoTime() + Math.min(timeLimit.toNanos(), Long.MAX_VALUE / 4);
        while (found.size() <= page.limit() && examined < OutboxSearch.MAX_EXAMINED
                && (examined == 0 || System.nanoTime() < deadline)) {
            Page<Light> chunk = chunk(plan, cursor, Math.min(CHUNK, OutboxSearch.MAX_EXAMINED - examined));
            for (Light row : chunk.items()) {
                examined++;
                lastRead = plan.keyset().cursorOf(row);
                if (matches(c, row) && found.add(row) && found.size() > page.limit()) {
                    break;
                }
            }
            if (!chunk.hasNext()) {
                exhausted = true;
                break;
            }
            cursor = chunk.nextCursor();
        }
        if (found.size() > page.limit()) {
            found = found.subList(0, page.limit());
            return new Found<>(found, plan.keyset().cursorOf(found.get(found.size() - 1)), examined, true, plan.driver());
        }
        return new Found<>(found, exhausted ? null : lastRead, examined, exhausted, plan.driver());
    }

    /**
     * The next {@code want} rows after {@code cursor} in the plan's order. With several branches: the first
     * {@code want} of each, merged newest first, cut to {@code want}: the k-th newest of the union is never older than
     * the k-th newest of any one branch, so these are exactly the union's first {@code want}; the rest is read again
     * with the next chunk.
     */
    private Page<Light> chunk(Plan plan, String cursor, int want) {
        PageRequest request = new PageRequest(want, cursor);
        if (plan.branches().size() == 1) {
            return plan.keyset().page(s, request, what, plan.params());
        }
        List<Light> all = new ArrayList<>();
        boolean more = false;
        for (Keyset<Light> branch : plan.branches()) {
            Page<Light> p = branch.page(s, request, what, plan.params());
            all.addAll(p.items());
            more |= p.hasNext();
        }
        all.sort(java.util.Comparator.comparingLong(Light::id).reversed());
        List<Light> rows = all.size() > want ? all.subList(0, want) : all;
        boolean hasNext = more || rows.size() < all.size();
        return new Page<>(rows, hasNext && !rows.isEmpty() ? plan.keyset().cursorOf(rows.get(rows.size() - 1)) : null);
    }

    private static boolean matches(Criteria c, Light r) {
        return (c.eventNo() == null || c.eventNo().equals(r.eventNo()))
                && (c.keyId() == null || c.keyId().equals(r.keyId()))
                && (c.keyType() == null || c.keyType().equals(r.keyType()))
                && (c.traceId() == null || c.traceId().equals(r.traceId()))
                && (c.eventType() == null || c.eventType().equals(r.eventType()))
                && (c.topic() == null || c.topic().equals(r.topic()))
                && (c.channel() == null || c.channel().equals(r.channel()))
                && (c.statuses().isEmpty() || c.statuses().contains(r.status()))
                && (c.from() == null || !r.createTime().isBefore(c.from()))
                && (c.before() == null || r.createTime().isBefore(c.before()))
                && (c.minAttempts() == null || r.retryCount() >= c.minAttempts())
                && (c.error() == null || r.failReason() != null
                        && r.failReason().toLowerCase(Locale.ROOT).contains(c.error().toLowerCase(Locale.ROOT)));
    }

    private Light light(ResultSet rs, Dialect d) throws SQLException {
        return new Light(rs.getLong("id"), rs.getString("event_no"), rs.getString(table.keyTypeColumn()),
                rs.getString(table.keyIdColumn()), rs.getString("event_type"), rs.getInt(table.statusColumn()),
                rs.getInt("retry_count"), rs.getString("fail_reason"), rs.getString("trace_id"),
                d.readTime(rs, "create_time"), table.routes() ? rs.getString("publish_channel") : null,
                table.routes() ? rs.getString("topic") : null);
    }

    /** The whole rows with the ids of {@code rows}, in their order. */
    private <R> List<R> full(List<Light> rows, String columns, Keyset.Mapper<R> mapper, ToLongFunction<R> idOf) {
        if (rows.isEmpty()) {
            return List.of();
        }
        Map<Long, R> byId = new HashMap<>();
        try (Connection c = s.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement("SELECT "
                + columns + " FROM " + table.name() + " WHERE id IN ("
                + String.join(", ", Collections.nCopies(rows.size(), "?")) + ")")) {
            for (int i = 0; i < rows.size(); i++) {
                ps.setLong(i + 1, rows.get(i).id());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    R r = mapper.map(rs, s.dialect());
                    byId.put(idOf.applyAsLong(r), r);
                }
            }
        } catch (SQLException e) {
            throw new PostboxSqlException(what + ": reading the events found", e);
        }
        // a row retention removed between the two reads is left out
        return rows.stream().map(r -> byId.get(r.id())).filter(Objects::nonNull).toList();
    }

    /**
     * The key types to probe for a search by key id alone (empty for any other search): read by one index probe
     * per type (a loose index scan), kept a minute.
     */
    private List<String> keyTypes(Criteria c, boolean refresh) {
        if (c.keyId() == null || c.keyType() != null || c.eventNo() != null) {
            return List.of();
        }
        List<String> types = keyTypes;
        if (types != null && !refresh && System.nanoTime() - keyTypesRead < TYPES_TTL_NANOS) {
            return types;
        }
        String sql = s.dialect().distinctValuesSql(table.name(), table.keyTypeColumn(), MAX_KEY_TYPES + 1);
        List<String> read = new ArrayList<>();
        try (Connection conn = s.dataSource().getConnection(); PreparedStatement ps = conn.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                read.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new PostboxSqlException(what + ": reading the " + table.keyName() + " types", e);
        }
        if (read.size() > MAX_KEY_TYPES) {
            throw new ValidationException(table.keyName(), "the table has more than " + MAX_KEY_TYPES + " "
                    + table.keyName() + " types: give the type too (" + table.keyName() + ":TYPE/" + c.keyId() + ")");
        }
        keyTypes = List.copyOf(read);
        keyTypesRead = System.nanoTime();
        return keyTypes;
    }
}
