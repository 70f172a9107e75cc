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
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A bounded, keyset-paged SELECT: {@code WHERE <filter> [AND <after cursor>] ORDER BY <key> LIMIT n+1}.
 * The key is {@code id}, or a time column with {@code id} as tie-breaker, ascending or descending;
 * the cursor is the key of the last row returned.
 */
final class Keyset<T> {

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
        String head = "SELECT %s FROM %s WHERE %s".formatted(columns, from, filter);
        String dir = descending ? " DESC" : "";
        String cmp = descending ? " < " : " > ";
        // Columns the filter pins to one value lead the ORDER BY where the dialect wants them (see pinned()).
        String prefix = sortPrefix == null ? "" : String.join(dir + ", ", sortPrefix.split(",\\s*")) + dir + ", ";
        String order = " ORDER BY %s%sid%s".formatted(prefix, timeColumn == null ? "" : timeColumn + dir + ", ", dir);
        // The redundant bound on the time column lets the index range start at the cursor instead of
        // re-reading every earlier row of the range on each page.
        String after = timeColumn == null ? " AND id%s?".formatted(cmp)
                : " AND %1$s %2$s ? AND (%1$s%3$s? OR (%1$s = ? AND id%3$s?))"
                        .formatted(timeColumn, descending ? "<=" : ">=", cmp);
        this.sql = "%s%s LIMIT ?".formatted(head, order);
        this.sqlAfter = "%s%s%s LIMIT ?".formatted(head, after, order);
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

    /** Pages in descending id order (newest first). */
    static <T> Keyset<T> byIdDescending(String columns, String from, String filter, String sortPrefix, Mapper<T> mapper,
                                        Function<T, Long> idOf) {
        return new Keyset<>(columns, from, filter, sortPrefix, null, true, mapper, idOf, null);
    }

    /**
     * {@code columns} as a sort prefix where {@code dialect} wants the pinned columns in the ORDER BY
     * ({@link Dialect#sortsByPinnedColumns()}), else null.
     */
    static String pinned(Dialect dialect, String columns) {
        return dialect.sortsByPinnedColumns() ? columns : null;
    }

    /** The cursor of a page that ends with {@code row}. */
    String cursorOf(T row) {
        return timeColumn == null ? Long.toString(idOf.apply(row)) : timeOf.apply(row).toEpochMilli() + ":" + idOf.apply(row);
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

    /**
     * Reads one page. {@code params} are the filter's parameters in order: String, Integer or Instant.
     *
     * @param what names the query in an error
     */
    Page<T> page(Settings s, PageRequest page, String what, Object... params) {
        long[] cursor = page.after() == null ? null : parse(page.after());
        Dialect d = s.dialect();
        try (Connection c = s.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(cursor == null ? sql : sqlAfter)) {
            int i = bind(ps, d, params);
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
            return new Page<>(items, cursorOf(items.get(items.size() - 1)));
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    /** Binds String, Integer and Instant parameters from index 1; returns the next free index. */
    static int bind(PreparedStatement ps, Dialect d, Object... params) throws SQLException {
        int i = 1;
        for (Object p : params) {
            if (p instanceof Instant t) {
                d.bindTime(ps, i++, t);
            } else if (p instanceof Integer n) {
                ps.setInt(i++, n);
            } else {
                ps.setString(i++, (String) p);
            }
        }
        return i;
    }

    /** The single row {@code sql} (one String parameter) finds, if any. */
    static <T> Optional<T> one(Settings s, String sql, String key, Mapper<T> mapper, String what) {
        try (Connection c = s.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(mapper.map(rs, s.dialect())) : Optional.empty();
            }
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
