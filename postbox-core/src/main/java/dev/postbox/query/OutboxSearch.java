package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

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
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Search of the outbox by {@link SearchQuery} (what the console's search box sends), bounded however large the
 * table is. One qualifier <em>drives</em> the search: its index is read in order, newest first, a chunk at a
 * time; the other conditions are checked on the rows read. The drivers, in the order one is chosen: event_no;
 * the aggregate (with its type, or by the id alone: then for each aggregate type Postbox found, an index probe);
 * the trace id; {@code status:} without PUBLISHED (the backlog and DEAD are small); {@code type:} and
 * {@code topic:} (newest first by creation time, within {@code after:}/{@code before:}); a creation time range;
 * {@code status:} with PUBLISHED. A search with none of them (only {@code channel:}, {@code error:},
 * {@code attempts>=}) would read the whole table and is refused. A page reads at most {@link #MAX_EXAMINED}
 * rows of its driver: when they hold fewer matches than asked, the page says so ({@link Result#complete()}
 * false) and its cursor continues after the last row read, so a rare match costs more pages, never an unbounded
 * statement. Thread-safe.
 */
public final class OutboxSearch {

    /** Rows of the driving index one page reads at most. */
    public static final int MAX_EXAMINED = 5_000;
    private static final int CHUNK = 500;
    private static final int MAX_AGGREGATE_TYPES = 200;
    private static final long TYPES_TTL_NANOS = 60_000_000_000L;
    private static final String LIGHT = "id, event_no, aggregate_type, aggregate_id, event_type, publish_channel, topic,"
            + " publish_status, retry_count, fail_reason, trace_id, create_time";

    /** What drives a search: which index is read, in which order. */
    public enum Driver { EVENT_NO, AGGREGATE, TRACE, STATUS, TYPE, TOPIC, CREATED }

    /**
     * One page of a search.
     *
     * @param items      the matching events, newest first (by id, or by creation time with type, topic and time)
     * @param nextCursor where the next page starts ({@link PageRequest#after(String, int)}), null after the last
     * @param examined   rows of the driving index this page read
     * @param complete   false when the page stopped at {@link #MAX_EXAMINED} rows read before it was full: more
     *                   may match after the cursor
     * @param driver     the qualifier whose index drove the search
     */
    public record Result(List<OutboxRecord> items, String nextCursor, int examined, boolean complete, Driver driver) {
        public Result {
            items = List.copyOf(items);
        }
    }

    /** A row as far as the conditions need it. */
    private record Light(long id, String eventNo, String aggregateType, String aggregateId, String eventType,
                         String channel, String topic, int status, int retryCount, String failReason, String traceId,
                         Instant createTime) {
    }

    private final Settings s;
    private final String table;
    private volatile List<String> aggregateTypes;
    private volatile long aggregateTypesRead;

    OutboxSearch(Settings settings) {
        this.s = settings;
        this.table = settings.tables().outbox();
    }

    /** {@link #search(SearchQuery, PageRequest)} of the text {@code query} ({@link SearchQuery#parse}). */
    public Result search(String query, PageRequest page) {
        return search(SearchQuery.parse(query, s.now()), page);
    }

    /** One page of the events matching every condition of {@code q}. */
    public Result search(SearchQuery q, PageRequest page) {
        Plan plan = plan(q, aggregateTypes(q, false));
        Result r = run(plan, q, page);
        if (r.items().isEmpty() && page.after() == null && plan.driver == Driver.AGGREGATE && q.aggregateType() == null
                && System.nanoTime() - aggregateTypesRead > 1_000_000_000L) {
            // an aggregate type written since the list was read: read it again once
            r = run(plan(q, aggregateTypes(q, true)), q, page);
        }
        return r;
    }

    /** The driver Postbox would choose for {@code q}; throws when none applies. */
    public Driver driver(SearchQuery q) {
        return choose(q);
    }

    /** The driving SELECT of {@code q} (first page), for EXPLAIN in tests. */
    String drivingSql(SearchQuery q) {
        return plan(q, aggregateTypes(q, true)).keyset.sql(false);
    }

    private record Plan(Driver driver, Keyset<Light> keyset, Object[] params) {
    }

    private static Driver choose(SearchQuery q) {
        if (q.eventNo() != null) {
            return Driver.EVENT_NO;
        }
        if (q.aggregateId() != null) {
            return Driver.AGGREGATE;
        }
        if (q.traceId() != null) {
            return Driver.TRACE;
        }
        if (!q.statuses().isEmpty() && !q.statuses().contains(OutboxStatus.PUBLISHED)) {
            return Driver.STATUS;
        }
        if (q.eventType() != null) {
            return Driver.TYPE;
        }
        if (q.topic() != null) {
            return Driver.TOPIC;
        }
        if (q.createdFrom() != null || q.createdBefore() != null) {
            return Driver.CREATED;
        }
        if (!q.statuses().isEmpty()) {
            return Driver.STATUS;
        }
        throw new ValidationException("query", "needs a condition Postbox can find through an index: an aggregate id,"
                + " event_no:, trace:, status:, type:, topic: or a time range (after:/before:); channel:, error: and"
                + " attempts>= only narrow such a search (alone they would read the whole table)");
    }

    private Plan plan(SearchQuery q, List<String> types) {
        Driver driver = choose(q);
        Dialect d = s.dialect();
        List<Object> params = new ArrayList<>();
        String filter;
        String prefix = null;
        String time = null;
        String from = table;
        switch (driver) {
            case EVENT_NO -> {
                filter = "event_no = ?";
                params.add(q.eventNo());
            }
            case AGGREGATE -> {
                List<String> t = q.aggregateType() != null ? List.of(q.aggregateType()) : types;
                if (t.isEmpty()) {
                    t = List.of("");
                }
                filter = "aggregate_type IN (" + String.join(", ", Collections.nCopies(t.size(), "?")) + ") AND aggregate_id = ?";
                params.addAll(t);
                params.add(q.aggregateId());
                prefix = t.size() == 1 ? "aggregate_type, aggregate_id" : null;
            }
            case TRACE -> {
                filter = "trace_id = ?";
                params.add(q.traceId());
            }
            case STATUS -> {
                Set<OutboxStatus> st = q.statuses();
                filter = "publish_status IN (" + st.stream().map(x -> Integer.toString(x.code()))
                        .collect(Collectors.joining(", ")) + ")";
                if (st.size() == 1) {
                    prefix = "publish_status";
                    from = table + d.forceIndex("idx_status_id");
                }
            }
            case TYPE, TOPIC, CREATED -> {
                time = "create_time";
                StringBuilder f = new StringBuilder();
                if (driver == Driver.TYPE) {
                    f.append("event_type = ?");
                    params.add(q.eventType());
                    prefix = "event_type";
                } else if (driver == Driver.TOPIC) {
                    f.append("topic = ?");
                    params.add(q.topic());
                    prefix = "topic";
                }
                if (q.createdFrom() != null) {
                    f.append(f.isEmpty() ? "" : " AND ").append("create_time >= ?");
                    params.add(q.createdFrom());
                }
                if (q.createdBefore() != null) {
                    f.append(f.isEmpty() ? "" : " AND ").append("create_time < ?");
                    params.add(q.createdBefore());
                }
                filter = f.toString();
            }
            default -> throw new IllegalStateException(driver.name());
        }
        Keyset<Light> keyset = time == null
                ? Keyset.byIdDescending(LIGHT, from, "deleted = 0 AND " + filter, prefix, OutboxSearch::light, Light::id)
                : Keyset.byTime(LIGHT, from, "deleted = 0 AND " + filter, prefix, time, true, OutboxSearch::light,
                        Light::id, Light::createTime);
        return new Plan(driver, keyset, params.toArray());
    }

    private Result run(Plan plan, SearchQuery q, PageRequest page) {
        List<Light> matches = new ArrayList<>();
        String cursor = page.after();
        int examined = 0;
        String lastRead = null;
        boolean exhausted = false;
        while (matches.size() <= page.limit() && examined < MAX_EXAMINED) {
            Page<Light> chunk = plan.keyset.page(s, new PageRequest(Math.min(CHUNK, MAX_EXAMINED - examined), cursor),
                    "outbox search", plan.params);
            for (Light row : chunk.items()) {
                examined++;
                lastRead = plan.keyset.cursorOf(row);
                if (matches(q, row) && matches.add(row) && matches.size() > page.limit()) {
                    break;
                }
            }
            if (!chunk.hasNext()) {
                exhausted = true;
                break;
            }
            cursor = chunk.nextCursor();
        }
        String next;
        boolean complete = true;
        if (matches.size() > page.limit()) {
            matches = matches.subList(0, page.limit());
            next = plan.keyset.cursorOf(matches.get(matches.size() - 1));
        } else if (exhausted) {
            next = null;
        } else {
            next = lastRead;
            complete = false;
        }
        return new Result(full(matches), next, examined, complete, plan.driver);
    }

    private static boolean matches(SearchQuery q, Light r) {
        return (q.eventNo() == null || q.eventNo().equals(r.eventNo()))
                && (q.aggregateId() == null || q.aggregateId().equals(r.aggregateId()))
                && (q.aggregateType() == null || q.aggregateType().equals(r.aggregateType()))
                && (q.traceId() == null || q.traceId().equals(r.traceId()))
                && (q.eventType() == null || q.eventType().equals(r.eventType()))
                && (q.topic() == null || q.topic().equals(r.topic()))
                && (q.channel() == null || q.channel().equals(r.channel()))
                && q.allows(OutboxStatus.values()[r.status()])
                && (q.createdFrom() == null || !r.createTime().isBefore(q.createdFrom()))
                && (q.createdBefore() == null || r.createTime().isBefore(q.createdBefore()))
                && (q.minAttempts() == null || r.retryCount() >= q.minAttempts())
                && (q.errorText() == null || r.failReason() != null
                        && r.failReason().toLowerCase(Locale.ROOT).contains(q.errorText().toLowerCase(Locale.ROOT)));
    }

    /** The whole rows of {@code rows}, in their order. */
    private List<OutboxRecord> full(List<Light> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        Map<Long, OutboxRecord> byId = new HashMap<>();
        try (Connection c = s.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement("SELECT "
                + OutboxRows.COLUMNS + " FROM " + table + " WHERE id IN ("
                + String.join(", ", Collections.nCopies(rows.size(), "?")) + ")")) {
            for (int i = 0; i < rows.size(); i++) {
                ps.setLong(i + 1, rows.get(i).id());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OutboxRecord r = OutboxRows.read(rs, s.dialect());
                    byId.put(r.id(), r);
                }
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("outbox search: reading the events found", e);
        }
        // a row retention removed between the two reads is left out
        return rows.stream().map(r -> byId.get(r.id())).filter(java.util.Objects::nonNull).toList();
    }

    private static Light light(ResultSet rs, Dialect d) throws SQLException {
        return new Light(rs.getLong("id"), rs.getString("event_no"), rs.getString("aggregate_type"),
                rs.getString("aggregate_id"), rs.getString("event_type"), rs.getString("publish_channel"),
                rs.getString("topic"), rs.getInt("publish_status"), rs.getInt("retry_count"), rs.getString("fail_reason"),
                rs.getString("trace_id"), d.readTime(rs, "create_time"));
    }

    /**
     * The aggregate types of the outbox, for a search by aggregate id alone: read by one index probe per type
     * (a loose index scan), kept a minute.
     */
    private List<String> aggregateTypes(SearchQuery q, boolean refresh) {
        if (q.aggregateId() == null || q.aggregateType() != null || q.eventNo() != null) {
            return List.of();
        }
        List<String> types = aggregateTypes;
        if (types != null && !refresh && System.nanoTime() - aggregateTypesRead < TYPES_TTL_NANOS) {
            return types;
        }
        String sql = s.dialect().distinctValuesSql(table, "aggregate_type", MAX_AGGREGATE_TYPES + 1);
        List<String> read = new ArrayList<>();
        try (Connection c = s.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                read.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("outbox search: reading the aggregate types", e);
        }
        if (read.size() > MAX_AGGREGATE_TYPES) {
            throw new ValidationException("aggregate", "the outbox has more than " + MAX_AGGREGATE_TYPES + " aggregate"
                    + " types: give the type too (aggregate:TYPE/" + q.aggregateId() + ")");
        }
        aggregateTypes = List.copyOf(read);
        aggregateTypesRead = System.nanoTime();
        return aggregateTypes;
    }
}
