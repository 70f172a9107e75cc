package dev.postbox.query;

import dev.postbox.PostboxSqlException;
import dev.postbox.ValidationException;
import dev.postbox.jdbc.Dialect;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A bounded, keyset-paged SELECT: {@code WHERE <filter> [AND <after cursor>] ORDER BY <key> LIMIT n+1}.
 * The key is {@code id}, or a time column with {@code id} as tie-breaker, ascending or descending;
 * the cursor is the key of the last row returned.
 */
final class Keyset<T> {

    /** Binds the filter's parameters starting at index 1; returns the next free index. */
    interface Filter {
        int bind(PreparedStatement ps, Dialect d) throws SQLException;
    }

    interface Mapper<T> {
        T map(ResultSet rs, Dialect d) throws SQLException;
    }

    private final String sql;
    private final String sqlAfter;
    private final String timeColumn;
    private final Mapper<T> mapper;
    private final Function<T, Long> idOf;
    private final Function<T, Instant> timeOf;

    private Keyset(String columns, String from, String filter, String sortPrefix, String timeColumn,
                   boolean descending, Mapper<T> mapper, Function<T, Long> idOf, Function<T, Instant> timeOf) {
        String head = "SELECT " + columns + " FROM " + from + " WHERE " + filter;
        String dir = descending ? " DESC" : "";
        String cmp = descending ? " < " : " > ";
        // Columns the filter pins to one value lead the ORDER BY, so that H2 (and any planner that does not
        // reason about constants) sees the index order; PostgreSQL and MySQL plan it the same either way.
        String prefix = sortPrefix == null ? "" : String.join(dir + ", ", sortPrefix.split(",\\s*")) + dir + ", ";
        String order = " ORDER BY " + prefix + (timeColumn == null ? "" : timeColumn + dir + ", ") + "id" + dir;
        // The redundant bound on the time column lets the index range start at the cursor instead of
        // re-reading every earlier row of the range on each page.
        String after = timeColumn == null ? " AND id" + cmp + "?"
                : " AND " + timeColumn + (descending ? " <= ?" : " >= ?")
                + " AND (" + timeColumn + cmp + "? OR (" + timeColumn + " = ? AND id" + cmp + "?))";
        this.sql = head + order + " LIMIT ?";
        this.sqlAfter = head + after + order + " LIMIT ?";
        this.timeColumn = timeColumn;
        this.mapper = mapper;
        this.idOf = idOf;
        this.timeOf = timeOf;
    }

    /**
     * Pages in id order.
     *
     * @param from       table name, optionally followed by a dialect's index hint
     * @param sortPrefix comma-separated columns the filter fixes by equality, or null
     */
    static <T> Keyset<T> byId(String columns, String from, String filter, String sortPrefix, Mapper<T> mapper,
                              Function<T, Long> idOf) {
        return new Keyset<>(columns, from, filter, sortPrefix, null, false, mapper, idOf, null);
    }

    /** Pages in ({@code timeColumn}, id) order, ascending or descending. */
    static <T> Keyset<T> byTime(String columns, String from, String filter, String sortPrefix, String timeColumn,
                                boolean descending, Mapper<T> mapper, Function<T, Long> idOf,
                                Function<T, Instant> timeOf) {
        return new Keyset<>(columns, from, filter, sortPrefix, timeColumn, descending, mapper, idOf, timeOf);
    }

    /** The SQL text run for a first page (or, with {@code after}, a later one); for EXPLAIN in tests. */
    String sql(boolean after) {
        return after ? sqlAfter : sql;
    }

    Page<T> page(DataSource dataSource, Dialect d, PageRequest page, Filter filter, String what) {
        long[] cursor = page.after() == null ? null : parse(page.after());
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(cursor == null ? sql : sqlAfter)) {
            int i = filter.bind(ps, d);
            if (cursor != null) {
                if (timeColumn == null) {
                    ps.setLong(i++, cursor[0]);
                } else {
                    Instant t = Instant.ofEpochMilli(cursor[0]);
                    d.bindTime(ps, i++, t);
                    d.bindTime(ps, i++, t);
                    d.bindTime(ps, i++, t);
                    ps.setLong(i++, cursor[1]);
                }
            }
            ps.setInt(i, page.limit() + 1);
            List<T> rows = new ArrayList<>(Math.min(page.limit() + 1, 64));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(mapper.map(rs, d));
                }
            }
            if (rows.size() <= page.limit()) {
                return new Page<>(rows, null);
            }
            List<T> items = rows.subList(0, page.limit());
            T last = items.get(items.size() - 1);
            String next = timeColumn == null ? Long.toString(idOf.apply(last))
                    : timeOf.apply(last).toEpochMilli() + ":" + idOf.apply(last);
            return new Page<>(items, next);
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    private long[] parse(String cursor) {
        try {
            if (timeColumn == null) {
                return new long[] {Long.parseLong(cursor)};
            }
            int colon = cursor.indexOf(':');
            if (colon < 0) {
                throw new NumberFormatException();
            }
            return new long[] {Long.parseLong(cursor.substring(0, colon)), Long.parseLong(cursor.substring(colon + 1))};
        } catch (NumberFormatException e) {
            throw new ValidationException("after", "is not a cursor returned by this query (was \""
                    + (cursor.length() > 40 ? cursor.substring(0, 40) + "..." : cursor) + "\")");
        }
    }
}
