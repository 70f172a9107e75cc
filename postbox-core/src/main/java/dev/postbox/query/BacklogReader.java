package dev.postbox.query;

import dev.postbox.PostboxSqlException;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.function.IntFunction;

/**
 * Reads a {@link Backlog}: one grouped count of statuses 0, 1, 3 and 5 over the status index, then for each
 * unfinished status that has rows, the create_time of its first row in (status, id) order.
 */
final class BacklogReader {

    private BacklogReader() {
    }

    /** {@code SELECT status, COUNT(*) ... GROUP BY status} over the unfinished statuses and DEAD. */
    static String countSql(String tableWithIndexHint, String statusColumn) {
        return "SELECT " + statusColumn + ", COUNT(*) FROM " + tableWithIndexHint + " WHERE deleted = 0 AND "
                + statusColumn + " IN (0, 1, 3, 5) GROUP BY " + statusColumn;
    }

    /**
     * @param oldestOf the create_time of the first row (in id order) of a status code, or null when it has none
     */
    static Backlog read(Settings s, String countSql, IntFunction<Instant> oldestOf, String what) {
        long[] counts;
        try (Connection c = s.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(countSql);
             ResultSet rs = ps.executeQuery()) {
            counts = StatusCounts.tally(rs);
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
        Instant oldest = null;
        for (int status : new int[] {0, 1, 3}) {
            if (counts[status] == 0) {
                continue;
            }
            Instant t = oldestOf.apply(status);
            if (t != null && (oldest == null || t.isBefore(oldest))) {
                oldest = t;
            }
        }
        return new Backlog(counts[0], counts[1], counts[3], counts[5], oldest, s.clock().instant());
    }
}
