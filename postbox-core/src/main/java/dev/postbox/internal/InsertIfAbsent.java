package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A one-row INSERT guarded by a (possibly composite) unique key: it either inserts the row or, when the
 * key exists, changes nothing and reports so. PostgreSQL skips the row with {@code ON CONFLICT DO
 * NOTHING}, so the caller's transaction is never aborted by the duplicate; MySQL/MariaDB and H2 fail only
 * the statement, and the duplicate-key error of exactly this key is the answer. A concurrent insert of the
 * same key waits for the first transaction and is then skipped (or inserted, if that one rolled back).
 * The row's id is assigned by the database. Thread-safe.
 *
 * <p>Where a duplicate-key error locks the gap before the existing key ({@link Dialect#locksIndexGaps()}:
 * InnoDB), a plain read looks for the key first: a key the transaction can already see is a duplicate
 * without any lock, so that a redelivery holds no lock another key's insert would wait for. The read only
 * ever answers "duplicate"; a key it does not see is inserted, and the unique key decides.
 */
public final class InsertIfAbsent {

    /** Binds parameters of a statement. */
    @FunctionalInterface
    public interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /**
     * What {@link #insert} did: {@code inserted} with the new row's id, or found the key taken, by the row
     * {@code id} the transaction sees, or by a duplicate-key error ({@code id} 0: a row it cannot see yet,
     * committed after its snapshot began, or written by a transaction that was still open).
     */
    public record Outcome(boolean inserted, long id) {
    }

    private final Dialect dialect;
    private final String sql;
    private final String lookSql;
    private final boolean skips;
    private final String keyName;

    /**
     * @param columns    comma-separated column list without {@code id}, which the database assigns; the unique
     *                   key's columns first, in the order of {@code keyColumns}
     * @param values     the VALUES tuple
     * @param keyColumns the unique key's columns, comma-separated
     * @param keyName    name (or distinctive suffix) of that unique key, as the database reports it
     */
    public InsertIfAbsent(Dialect dialect, String table, String columns, String values, String keyColumns, String keyName) {
        this.dialect = dialect;
        String tail = dialect.skipDuplicatesReturning(keyColumns, "id");
        this.skips = tail != null;
        this.sql = "INSERT INTO %s (%s) VALUES %s%s".formatted(table, columns, values, skips ? tail : "");
        this.lookSql = dialect.locksIndexGaps() ? "SELECT id FROM %s WHERE %s".formatted(table,
                String.join(" = ? AND ", keyColumns.split(",\\s*")) + " = ?") : null;
        this.keyName = keyName;
    }

    /**
     * Inserts the row unless its key exists.
     *
     * @param key  binds the key's columns, from index 1
     * @param rest binds the other parameters of the VALUES tuple, which follow the key's
     */
    public Outcome insert(Connection connection, Binder key, Binder rest) throws SQLException {
        if (lookSql != null) {
            long seen = seen(connection, key);
            if (seen != 0) {
                return new Outcome(false, seen);
            }
        }
        return insertWithoutLooking(connection, key, rest);
    }

    /** {@link #insert} without the plain read first: for a row the transaction saw and found gone (deleted). */
    public Outcome insertWithoutLooking(Connection connection, Binder key, Binder rest) throws SQLException {
        try (PreparedStatement ps = skips ? connection.prepareStatement(sql)
                : connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            key.bind(ps);
            rest.bind(ps);
            if (skips) {
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new Outcome(true, rs.getLong(1)) : new Outcome(false, 0);
                }
            }
            try {
                ps.executeUpdate();
            } catch (SQLException e) {
                if (dialect.isDuplicateKey(e, keyName)) {
                    return new Outcome(false, 0);
                }
                throw e;
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                long id = keys.next() ? keys.getLong(1) : 0;
                if (id <= 0) {
                    throw new SQLException("the database reported no id for the row just inserted");
                }
                return new Outcome(true, id);
            }
        }
    }

    /** The id of the row with the key as the transaction sees it (plain read: no lock), or 0. */
    private long seen(Connection connection, Binder key) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(lookSql)) {
            key.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}
