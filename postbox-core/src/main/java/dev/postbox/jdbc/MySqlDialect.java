package dev.postbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * MySQL 8 and MariaDB: DATETIME(3) columns hold UTC, bound as local date-times so that neither the
 * driver nor the session time zone shifts them. A duplicate key (error 1062) fails only the statement,
 * not the transaction, so duplicates are detected from the error.
 */
final class MySqlDialect implements Dialect {

    private static final int ER_DUP_ENTRY = 1062;
    /** DATETIME's range. */
    private static final Instant EARLIEST = Instant.parse("1000-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");
    /** MariaDB's JSON_VALID refuses 32 levels of nesting (MySQL 8 allows 100). */
    private static final int MAX_JSON_DEPTH = 31;

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public void bindJson(PreparedStatement ps, int index, String json) throws SQLException {
        if (json == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, json);
        }
    }

    @Override
    public void bindTime(PreparedStatement ps, int index, Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP);
        } else {
            ps.setObject(index, LocalDateTime.ofInstant(storableTime(instant), ZoneOffset.UTC));
        }
    }

    @Override
    public Instant latestTime() {
        return LATEST;
    }

    @Override
    public Instant earliestTime() {
        return EARLIEST;
    }

    @Override
    public int maxJsonDepth() {
        return MAX_JSON_DEPTH;
    }

    @Override
    public long maxStatementBytes(java.sql.Connection connection) throws SQLException {
        try (var st = connection.createStatement(); var rs = st.executeQuery("SELECT @@max_allowed_packet")) {
            return rs.next() ? rs.getLong(1) : Long.MAX_VALUE;
        }
    }

    @Override
    public Instant readTime(ResultSet rs, String column) throws SQLException {
        LocalDateTime t = rs.getObject(column, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }

    @Override
    public String forceIndex(String indexName) {
        return " FORCE INDEX (%s)".formatted(indexName);
    }

    /** MySQL allows no LIMIT in an IN subquery, but DELETE itself takes ORDER BY and LIMIT. */
    @Override
    public String deleteBatch(String table, String condition, String orderColumn) {
        return "DELETE FROM %s WHERE %s ORDER BY %s LIMIT ?".formatted(table, condition, orderColumn);
    }

    @Override
    public boolean isDuplicateKey(SQLException e, String keyName) {
        return e.getErrorCode() == ER_DUP_ENTRY && PostgresDialect.mentions(e, keyName);
    }

    // capabilities: what the core, the relay and the worker decide by, instead of comparing dialects

    /** MySQL 8 and MariaDB 10.6 skip locked rows, but neither returns the rows of an UPDATE. */
    @Override
    public boolean claimsWithSkipLocked() {
        return true;
    }

    /** InnoDB at REPEATABLE READ: next-key locks on duplicate keys and, on MariaDB, on unique-key lookups. */
    @Override
    public boolean locksIndexGaps() {
        return true;
    }

    @Override
    public String duplicateRowLock() {
        return " LOCK IN SHARE MODE";
    }

    /** DATETIME(3) columns hold UTC. */
    @Override
    public String currentTimeSql() {
        return "UTC_TIMESTAMP(3)";
    }

    /** InnoDB's row-lock wait for the session, in whole seconds (at least 1: its smallest value). */
    @Override
    public String lockTimeoutSql(java.time.Duration timeout) {
        return "SET SESSION innodb_lock_wait_timeout = " + Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    /** From information_schema (InnoDB's sampled estimate). */
    @Override
    public String tableSizeSql() {
        // summed over information_schema.PARTITIONS (one row, the same figures, for a table without partitions):
        // TABLES overstates a partitioned table's rows
        return "SELECT SUM(DATA_LENGTH + INDEX_LENGTH), SUM(TABLE_ROWS) FROM information_schema.PARTITIONS"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? HAVING COUNT(*) > 0";
    }
}
