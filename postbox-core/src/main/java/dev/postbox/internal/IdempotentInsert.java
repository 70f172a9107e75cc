package dev.postbox.internal;

import dev.postbox.PostboxDefaults;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A multi-row INSERT keyed by a unique column, where a row whose key already exists is skipped and
 * changes nothing. PostgreSQL skips it with {@code ON CONFLICT DO NOTHING RETURNING}; MySQL/MariaDB and
 * H2 fail only the statement on a duplicate key, so the chunk is retried row by row and each
 * duplicate-key error marks one row as a duplicate. Keys repeated inside one batch count as duplicates
 * of their first occurrence. Never a read-then-write: the unique key decides.
 *
 * @param <T> the row type
 */
public final class IdempotentInsert<T> {

    /** Binds one row's parameters starting at {@code offset}, returning the next free index. */
    @FunctionalInterface
    public interface Binder<T> {
        int bind(PreparedStatement ps, int offset, T row) throws SQLException;
    }

    private final Dialect dialect;
    private final String insertHead;
    private final String tuple;
    private final String tail;
    private final String uniqueKeyName;
    private final Function<T, String> key;
    private final Binder<T> binder;

    /**
     * @param columns       comma-separated column list
     * @param tuple         one row's VALUES tuple, e.g. {@code (?, ?, ? FORMAT JSON)}
     * @param keyColumn     the unique column that identifies a row
     * @param uniqueKeyName name (or distinctive suffix) of the unique constraint on {@code keyColumn}
     */
    public IdempotentInsert(Dialect dialect, String table, String columns, String tuple, String keyColumn,
                            String uniqueKeyName, Function<T, String> key, Binder<T> binder) {
        this.dialect = dialect;
        this.insertHead = "INSERT INTO " + table + " (" + columns + ") VALUES ";
        this.tuple = tuple;
        this.tail = dialect.skipDuplicatesReturning(keyColumn, keyColumn);
        this.uniqueKeyName = uniqueKeyName;
        this.key = key;
        this.binder = binder;
    }

    /** Inserts {@code rows}; element i of the result says whether row i was inserted (false: duplicate). */
    public boolean[] insert(Connection connection, List<T> rows) throws SQLException {
        boolean[] inserted = new boolean[rows.size()];
        List<T> unique = new ArrayList<>(rows.size());
        List<Integer> positions = new ArrayList<>(rows.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (seen.add(key.apply(rows.get(i)))) {
                unique.add(rows.get(i));
                positions.add(i);
            }
        }
        for (int from = 0; from < unique.size(); from += PostboxDefaults.WRITE_BATCH_ROWS) {
            int to = Math.min(unique.size(), from + PostboxDefaults.WRITE_BATCH_ROWS);
            boolean[] chunk = tail != null
                    ? insertSkipping(connection, unique.subList(from, to))
                    : insertDetecting(connection, unique.subList(from, to));
            for (int i = 0; i < chunk.length; i++) {
                inserted[positions.get(from + i)] = chunk[i];
            }
        }
        return inserted;
    }

    private boolean[] insertSkipping(Connection connection, List<T> rows) throws SQLException {
        Set<String> insertedKeys = new HashSet<>();
        try (PreparedStatement ps = connection.prepareStatement(sql(rows.size()) + tail)) {
            bindAll(ps, rows);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    insertedKeys.add(rs.getString(1));
                }
            }
        }
        boolean[] result = new boolean[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            result[i] = insertedKeys.contains(key.apply(rows.get(i)));
        }
        return result;
    }

    private boolean[] insertDetecting(Connection connection, List<T> rows) throws SQLException {
        boolean[] result = new boolean[rows.size()];
        if (rows.size() > 1) {
            try (PreparedStatement ps = connection.prepareStatement(sql(rows.size()))) {
                bindAll(ps, rows);
                ps.executeUpdate();
                java.util.Arrays.fill(result, true);
                return result;
            } catch (SQLException e) {
                if (!dialect.isDuplicateKey(e, uniqueKeyName)) {
                    throw e;
                }
                // the statement was rolled back as a whole; find the duplicates one row at a time
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(sql(1))) {
            for (int i = 0; i < rows.size(); i++) {
                binder.bind(ps, 1, rows.get(i));
                try {
                    result[i] = ps.executeUpdate() == 1;
                } catch (SQLException e) {
                    if (!dialect.isDuplicateKey(e, uniqueKeyName)) {
                        throw e;
                    }
                    result[i] = false;
                }
            }
        }
        return result;
    }

    private void bindAll(PreparedStatement ps, List<T> rows) throws SQLException {
        int index = 1;
        for (T row : rows) {
            index = binder.bind(ps, index, row);
        }
    }

    private final Map<Integer, String> sqlCache = new java.util.concurrent.ConcurrentHashMap<>();

    private String sql(int rows) {
        if (rows != 1 && rows != PostboxDefaults.WRITE_BATCH_ROWS) {
            return buildSql(rows);
        }
        return sqlCache.computeIfAbsent(rows, this::buildSql);
    }

    private String buildSql(int n) {
        {
            StringBuilder b = new StringBuilder(insertHead.length() + n * (tuple.length() + 2));
            b.append(insertHead);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    b.append(", ");
                }
                b.append(tuple);
            }
            return b.toString();
        }
    }

}
