package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Reads a {@link Backlog} on one connection: a grouped count of statuses 0, 1, 3 and 5 over the status index,
 * then for each unfinished status that has rows, the create_time of its first row in (status, id) order.
 * Status codes are literals so that partial indexes apply.
 */
final class BacklogReader {

    private static final int[] UNFINISHED = {0, 1, 3};

    private final String countSql;
    /** Indexed by status code; only the unfinished ones are set. */
    private final String[] oldestSql = new String[6];

    /**
     * @param tableWithIndexHint the table, with the dialect's hint for its (status, id) index
     * @param statusColumn       {@code publish_status} or {@code event_status}
     */
    BacklogReader(String tableWithIndexHint, String statusColumn) {
        countSql = "SELECT " + statusColumn + ", COUNT(*) FROM " + tableWithIndexHint + " WHERE deleted = 0 AND "
                + statusColumn + " IN (0, 1, 3, 5) GROUP BY " + statusColumn;
        for (int status : UNFINISHED) {
            oldestSql[status] = "SELECT create_time FROM " + tableWithIndexHint + " WHERE deleted = 0 AND "
                    + statusColumn + " = " + status + " ORDER BY id LIMIT 1";
        }
    }

    Backlog read(Settings s, String what) {
        try (Connection c = s.dataSource().getConnection()) {
            long[] counts;
            try (PreparedStatement ps = c.prepareStatement(countSql); ResultSet rs = ps.executeQuery()) {
                counts = StatusCounts.tally(rs);
            }
            Instant oldest = null;
            for (int status : UNFINISHED) {
                if (counts[status] == 0) {
                    continue;
                }
                try (PreparedStatement ps = c.prepareStatement(oldestSql[status]); ResultSet rs = ps.executeQuery()) {
                    Instant t = rs.next() ? s.dialect().readTime(rs, "create_time") : null;
                    if (t != null && (oldest == null || t.isBefore(oldest))) {
                        oldest = t;
                    }
                }
            }
            return new Backlog(counts[0], counts[1], counts[3], counts[5], oldest, s.clock().instant());
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }
}
