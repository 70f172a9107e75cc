package dev.postbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * H2 2.x: TIMESTAMP WITH TIME ZONE instants; JSON parameters need {@code FORMAT JSON}, or H2 would
 * store the text as a JSON string. A duplicate key fails only the statement.
 */
final class H2Dialect implements Dialect {

    private static final Instant EARLIEST = Instant.parse("-999999999-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("+999999999-12-31T23:59:59.999Z");

    /** H2 (an embedded, small database) reads them with a plain DISTINCT. */
    @Override
    public String distinctValuesSql(String table, String column, int limit) {
        return "SELECT DISTINCT %2$s FROM %1$s ORDER BY 1 LIMIT %3$d".formatted(table, column, limit);
    }

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public String jsonParameter() {
        return "? FORMAT JSON";
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
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(storableTime(instant), ZoneOffset.UTC));
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

    /** H2 holds strings as Java strings: VARCHAR(n) counts UTF-16 code units, so an emoji counts twice. */
    @Override
    public int textLength(String text) {
        return text.length();
    }

    @Override
    public String textLengthUnit() {
        return "characters (UTF-16 code units, as H2 counts them: an emoji counts 2)";
    }

    /** H2 reads JSON numbers as BigDecimal, whose scale is an int: {@code 1e2147483648} is refused. */
    @Override
    public boolean acceptsJsonNumber(String literal) {
        try {
            new java.math.BigDecimal(literal);
            return true;
        } catch (NumberFormatException | ArithmeticException e) {
            return false;
        }
    }

    @Override
    public Instant readTime(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** H2 collects the generated keys row by row as it inserts them. */
    @Override
    public boolean generatedKeysOfEveryRow() {
        return true;
    }

    @Override
    public boolean isDuplicateKey(SQLException e, String keyName) {
        return "23505".equals(e.getSQLState()) && PostgresDialect.mentions(e, keyName);
    }

    // capabilities: what the core, the relay and the worker decide by, instead of comparing dialects

    @Override
    public boolean embedded() {
        return true;
    }

    @Override
    public boolean sortsByPinnedColumns() {
        return true;
    }

    @Override
    public boolean batchedPrimaryKeyUpdates() {
        return true;
    }

    /** H2's lock wait for the session. */
    @Override
    public String lockTimeoutSql(java.time.Duration timeout) {
        return "SET LOCK_TIMEOUT " + timeout.toMillis();
    }

    /**
     * H2 keeps a row count estimate in its information schema, exact enough for a gauge, but no size per table
     * (its DISK_SPACE_USED is 0 in memory): bytes are NULL.
     */
    @Override
    public String tableSizeSql() {
        return "SELECT CAST(NULL AS BIGINT), ROW_COUNT_ESTIMATE FROM INFORMATION_SCHEMA.TABLES"
                + " WHERE TABLE_SCHEMA = CURRENT_SCHEMA AND UPPER(TABLE_NAME) = UPPER(?)";
    }
}
