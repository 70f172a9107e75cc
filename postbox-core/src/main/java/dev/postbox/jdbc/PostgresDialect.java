package dev.postbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** PostgreSQL: TIMESTAMPTZ instants, json/jsonb bound as untyped text, ON CONFLICT DO NOTHING. */
final class PostgresDialect implements Dialect {

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public void bindJson(PreparedStatement ps, int index, String json) throws SQLException {
        // Types.OTHER sends the text untyped, so the server converts it to the column's json or jsonb type.
        if (json == null) {
            ps.setNull(index, Types.OTHER);
        } else {
            ps.setObject(index, json, Types.OTHER);
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

    @Override
    public String skipDuplicatesReturning(String keyColumns, String returnedColumn) {
        return " ON CONFLICT (" + keyColumns + ") DO NOTHING RETURNING " + returnedColumn;
    }

    @Override
    public boolean isDuplicateKey(SQLException e, String keyName) {
        return "23505".equals(e.getSQLState()) && mentions(e, keyName);
    }

    static boolean mentions(SQLException e, String keyName) {
        String message = e.getMessage();
        return message != null && message.toLowerCase(java.util.Locale.ROOT).contains(keyName.toLowerCase(java.util.Locale.ROOT));
    }
}
