package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** What the claim strategies' statements share: the candidate selects and their parameters. */
final class ClaimSql {

    /** Reads one row of a result. */
    @FunctionalInterface
    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private ClaimSql() {
    }

    /**
     * Runs a candidate select whose parameters are [time,] the filter's, the limit; hands each row to
     * {@code reader}. {@code now} null: the select has no time parameter.
     */
    static void query(Connection c, Dialect dialect, String sql, Instant now, List<String> args, int limit,
                      RowReader reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (now != null) {
                dialect.bindTime(ps, i++, now);
            }
            for (String a : args) {
                ps.setString(i++, a);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    /** Binds the claim time to the claim SET's {@code stamps} time parameters from {@code first}; the next index. */
    static int bindStamps(PreparedStatement ps, Dialect dialect, int first, int stamps, Instant now)
            throws SQLException {
        int i = first;
        for (int k = 0; k < stamps; k++) {
            dialect.bindTime(ps, i++, now);
        }
        return i;
    }
}
