package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Runs a {@code status, COUNT(*) ... GROUP BY status} query for an event type and time range. */
final class StatusCounts {

    private StatusCounts() {
    }

    static long[] count(Settings s, String sql, String eventType, Instant from, Instant to, String what) {
        if (from == null || to == null) {
            throw new ValidationException(from == null ? "from" : "to", "is required");
        }
        if (!from.isBefore(to)) {
            throw new ValidationException("to", "must be after from (from=" + from + ", to=" + to + ")");
        }
        try (Connection c = s.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, eventType);
            s.dialect().bindTime(ps, 2, from);
            s.dialect().bindTime(ps, 3, to);
            try (ResultSet rs = ps.executeQuery()) {
                return tally(rs);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    /** Reads {@code (status, count)} rows into counts indexed by status code 0..5. */
    static long[] tally(ResultSet rs) throws SQLException {
        long[] counts = new long[6];
        while (rs.next()) {
            int status = rs.getInt(1);
            if (status >= 0 && status < counts.length) {
                counts[status] = rs.getLong(2);
            }
        }
        return counts;
    }
}
