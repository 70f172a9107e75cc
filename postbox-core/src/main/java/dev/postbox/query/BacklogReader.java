package dev.postbox.query;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Reads a {@link Backlog} on one connection: a grouped count of the pending, in-flight, failed and dead statuses
 * over the status index,
 * then for each unfinished status that has rows, the create_time of its first row in (status, id) order.
 * Status codes are literals in the SQL text (from the status enum, not parameters) so that partial indexes apply.
 */
final class BacklogReader {

    private final int[] unfinished;
    private final int dead;
    private final String countSql;
    /** Indexed by status code; only the unfinished ones are set. */
    private final String[] oldestSql = new String[6];

    /**
     * @param tableWithIndexHint the table, with the dialect's hint for its (status, id) index
     * @param statusColumn       {@code publish_status} or {@code event_status}
     * @param pending            that column's code of PENDING
     * @param inProgress         its code of PUBLISHING or PROCESSING
     * @param failed             its code of FAILED
     * @param dead               its code of DEAD
     */
    BacklogReader(String tableWithIndexHint, String statusColumn, int pending, int inProgress, int failed, int dead) {
        this.unfinished = new int[] {pending, inProgress, failed};
        this.dead = dead;
        countSql = """
                SELECT %1$s, COUNT(*) FROM %2$s
                WHERE deleted = 0 AND %1$s IN (%3$d, %4$d, %5$d, %6$d) GROUP BY %1$s"""
                .formatted(statusColumn, tableWithIndexHint, pending, inProgress, failed, dead);
        for (int status : unfinished) {
            oldestSql[status] = """
                    SELECT create_time FROM %s
                    WHERE deleted = 0 AND %s = %d ORDER BY id LIMIT 1""".formatted(tableWithIndexHint, statusColumn, status);
        }
    }

    Backlog read(Settings s, String what) {
        try (Connection c = s.dataSource().getConnection()) {
            long[] counts;
            try (PreparedStatement ps = c.prepareStatement(countSql); ResultSet rs = ps.executeQuery()) {
                counts = StatusCounts.tally(rs);
            }
            Instant oldest = null;
            for (int status : unfinished) {
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
            return new Backlog(counts[unfinished[0]], counts[unfinished[1]], counts[unfinished[2]], counts[dead], oldest,
                    s.clock().instant());
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }
}
