package dev.postbox.internal;

import dev.postbox.common.PostboxDefaults;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
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
 * <p>The INSERT names no {@code id}: the database assigns it when the row is inserted (schema version 3),
 * so ids follow the order in which inserts ran, across every writing process. The ids returned are the
 * ones the database assigned: PostgreSQL's {@code RETURNING key, id}; a one-row INSERT's generated key
 * elsewhere; for a multi-row INSERT, H2's generated keys (one per row, in row order) or, on MySQL/MariaDB,
 * whose driver cannot report every row's id, a read back by key in the same transaction.
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
    private final String table;
    private final String targetedTail;
    private final String untargetedTail;
    /** The tail in use: resolved on the first insert (the table may be the partitioned variant); "" detects. */
    private volatile String tail;
    /** {@link #GENERATION} when {@link #tail} was resolved. */
    private volatile int resolvedAt;
    /** Bumped by {@link #tablesChanged()}: every insert looks at its table again. */
    private static final java.util.concurrent.atomic.AtomicInteger GENERATION = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Tells every insert of this JVM that a table changed its kind (the outbox was converted to the partitioned
     * variant): each resolves its statement again on its next use. Another process learns it from the one
     * transaction that fails with 42P10.
     */
    public static void tablesChanged() {
        GENERATION.incrementAndGet();
    }
    private final String readBack;
    private final String uniqueKeyName;
    private final Function<T, String> key;
    private final Binder<T> binder;

    /**
     * @param columns       comma-separated column list, without {@code id}
     * @param tuple         one row's VALUES tuple, e.g. {@code (?, ?, ? FORMAT JSON)}
     * @param keyColumn     the unique column that identifies a row
     * @param uniqueKeyName name (or distinctive suffix) of the unique constraint on {@code keyColumn}
     */
    public IdempotentInsert(Dialect dialect, String table, String columns, String tuple, String keyColumn,
                            String uniqueKeyName, Function<T, String> key, Binder<T> binder) {
        this.dialect = dialect;
        this.insertHead = "INSERT INTO %s (%s) VALUES ".formatted(table, columns);
        this.tuple = tuple;
        this.table = table;
        this.targetedTail = dialect.skipDuplicatesReturning(keyColumn, keyColumn + ", id");
        this.untargetedTail = dialect.skipDuplicatesReturning(null, keyColumn + ", id");
        this.readBack = "SELECT %1$s, id FROM %2$s WHERE %1$s IN (".formatted(keyColumn, table);
        this.uniqueKeyName = uniqueKeyName;
        this.key = key;
        this.binder = binder;
    }

    /** Inserts {@code rows}; element i of the result is row i's new id, or 0 when it was a duplicate. */
    public long[] insert(Connection connection, List<T> rows) throws SQLException {
        long[] ids = new long[rows.size()];
        List<T> unique = new ArrayList<>(rows.size());
        List<Integer> positions = new ArrayList<>(rows.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (seen.add(key.apply(rows.get(i)))) {
                unique.add(rows.get(i));
                positions.add(i);
            }
        }
        String skipping = tail(connection);
        for (int from = 0; from < unique.size(); from += PostboxDefaults.WRITE_BATCH_ROWS) {
            int to = Math.min(unique.size(), from + PostboxDefaults.WRITE_BATCH_ROWS);
            long[] chunk = !skipping.isEmpty()
                    ? insertSkipping(connection, unique.subList(from, to), skipping)
                    : insertDetecting(connection, unique.subList(from, to));
            for (int i = 0; i < chunk.length; i++) {
                ids[positions.get(from + i)] = chunk[i];
            }
        }
        return ids;
    }

    /**
     * The duplicate-skipping tail for this table, "" where duplicates are detected by their error. On a table
     * whose unique key lives outside it (the partitioned outbox) the conflict has no target.
     */
    private String tail(Connection connection) throws SQLException {
        String t = tail;
        int generation = GENERATION.get();
        if (t == null || resolvedAt != generation) {
            resolvedAt = generation;
            t = targetedTail == null ? "" : targetedTail;
            String sql = dialect.partitionedTableSql();
            if (targetedTail != null && sql != null) {
                try (PreparedStatement ps = connection.prepareStatement(sql)) {
                    ps.setString(1, table);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next() && rs.getBoolean(1)) {
                            t = untargetedTail;
                        }
                    }
                }
            }
            tail = t;
        }
        return t;
    }

    private long[] insertSkipping(Connection connection, List<T> rows, String skipping) throws SQLException {
        Map<String, Long> insertedIds = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(sql(rows.size()) + skipping)) {
            bindAll(ps, rows);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    insertedIds.put(rs.getString(1), rs.getLong(2));
                }
            }
        } catch (SQLException e) {
            if ("42P10".equals(e.getSQLState())) {
                // the table became partitioned after this process looked (no unique index matches the target):
                // this transaction fails; the next insert looks again
                tail = null;
            }
            throw e;
        }
        long[] result = new long[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            result[i] = insertedIds.getOrDefault(key.apply(rows.get(i)), 0L);
        }
        return result;
    }

    private long[] insertDetecting(Connection connection, List<T> rows) throws SQLException {
        long[] result = new long[rows.size()];
        if (rows.size() > 1) {
            boolean keysOfEveryRow = dialect.generatedKeysOfEveryRow();
            try (PreparedStatement ps = keysOfEveryRow
                    ? connection.prepareStatement(sql(rows.size()), Statement.RETURN_GENERATED_KEYS)
                    : connection.prepareStatement(sql(rows.size()))) {
                bindAll(ps, rows);
                ps.executeUpdate();
                if (keysOfEveryRow) {
                    readGeneratedKeys(ps, result);
                    return result;
                }
            } catch (SQLException e) {
                if (!dialect.isDuplicateKey(e, uniqueKeyName)) {
                    throw e;
                }
                // the statement was rolled back as a whole; find the duplicates one row at a time
                return insertOneByOne(connection, rows, result);
            }
            readBack(connection, rows, result);
            return result;
        }
        return insertOneByOne(connection, rows, result);
    }

    private long[] insertOneByOne(Connection connection, List<T> rows, long[] result) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql(1), Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < rows.size(); i++) {
                binder.bind(ps, 1, rows.get(i));
                try {
                    ps.executeUpdate();
                } catch (SQLException e) {
                    if (!dialect.isDuplicateKey(e, uniqueKeyName)) {
                        throw e;
                    }
                    result[i] = 0;
                    continue;
                }
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    result[i] = keys.next() ? keys.getLong(1) : 0;
                }
                if (result[i] <= 0) {
                    throw new SQLException("the database reported no id for the inserted row " + key.apply(rows.get(i)));
                }
            }
        }
        return result;
    }

    private static void readGeneratedKeys(PreparedStatement ps, long[] result) throws SQLException {
        int n = 0;
        try (ResultSet keys = ps.getGeneratedKeys()) {
            while (keys.next() && n < result.length) {
                result[n++] = keys.getLong(1);
            }
        }
        if (n != result.length) {
            throw new SQLException("the database reported " + n + " ids for " + result.length + " inserted rows");
        }
    }

    /** The ids of rows this transaction just inserted, by their unique key (visible to it under every isolation level). */
    private void readBack(Connection connection, List<T> rows, long[] result) throws SQLException {
        Map<String, Long> ids = new HashMap<>();
        StringBuilder sql = new StringBuilder(readBack.length() + rows.size() * 3).append(readBack);
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.append(')').toString())) {
            for (int i = 0; i < rows.size(); i++) {
                ps.setString(i + 1, key.apply(rows.get(i)));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            Long id = ids.get(key.apply(rows.get(i)));
            if (id == null) {
                throw new SQLException("the row just inserted under " + key.apply(rows.get(i)) + " cannot be read back");
            }
            result[i] = id;
        }
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
