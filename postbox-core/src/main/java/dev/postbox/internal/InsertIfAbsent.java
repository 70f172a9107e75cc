package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A one-row INSERT guarded by a (possibly composite) unique key: it either inserts the row or, when the
 * key exists, changes nothing and reports so. PostgreSQL skips the row with {@code ON CONFLICT DO
 * NOTHING}, so the caller's transaction is never aborted by the duplicate; MySQL/MariaDB and H2 fail only
 * the statement, and the duplicate-key error of exactly this key is the answer. A concurrent insert of the
 * same key waits for the first transaction and is then skipped (or inserted, if that one rolled back).
 * Never a read-then-write. The row's id is assigned by the database. Thread-safe.
 */
public final class InsertIfAbsent {

    /** Binds the row's parameters, starting at index 1. */
    @FunctionalInterface
    public interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private final Dialect dialect;
    private final String sql;
    private final boolean skips;
    private final String keyName;

    /**
     * @param columns    comma-separated column list without {@code id}, which the database assigns
     * @param values     the VALUES tuple
     * @param keyColumns the unique key's columns, comma-separated
     * @param keyName    name (or distinctive suffix) of that unique key, as the database reports it
     */
    public InsertIfAbsent(Dialect dialect, String table, String columns, String values, String keyColumns, String keyName) {
        this.dialect = dialect;
        String tail = dialect.skipDuplicatesReturning(keyColumns, "id");
        this.skips = tail != null;
        this.sql = "INSERT INTO %s (%s) VALUES %s%s".formatted(table, columns, values, skips ? tail : "");
        this.keyName = keyName;
    }

    /** True if the row was inserted, false if a row with its key already exists. */
    public boolean insert(Connection connection, Binder binder) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            binder.bind(ps);
            if (skips) {
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
            try {
                return ps.executeUpdate() == 1;
            } catch (SQLException e) {
                if (dialect.isDuplicateKey(e, keyName)) {
                    return false;
                }
                throw e;
            }
        }
    }
}
