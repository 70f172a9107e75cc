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
            ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
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
}
