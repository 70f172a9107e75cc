package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Dialect;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * When the next event waiting for time becomes claimable: the earliest retry time of a FAILED outbox event, lease
 * end of a PUBLISHING one (its relay crashed) and, with a worker, retry time of a FAILED message event, after a
 * given instant. What {@link RelayDriver#drainAdvancingClock()} moves the test clock to.
 */
final class DueTimes {

    private final DataSource dataSource;
    private final Dialect dialect;
    private final String outboxSql;
    private final String messageSql;

    DueTimes(Postbox postbox, DataSource dataSource) {
        this.dataSource = dataSource;
        this.dialect = postbox.dialect();
        String outbox = postbox.tables().outbox();
        this.outboxSql = """
                SELECT MIN(t) AS next_time FROM (
                  SELECT MIN(next_retry_time) AS t FROM %1$s WHERE deleted = 0 AND publish_status = %2$d AND next_retry_time > ?
                  UNION ALL
                  SELECT MIN(lock_until) AS t FROM %1$s WHERE deleted = 0 AND publish_status = %3$d AND lock_until > ?
                ) due""".formatted(outbox, OutboxStatus.FAILED.code(), OutboxStatus.PUBLISHING.code());
        this.messageSql = """
                SELECT MIN(next_retry_time) AS next_time FROM %s WHERE deleted = 0 AND event_status = %d
                   AND next_retry_time > ?""".formatted(postbox.tables().message(), MessageStatus.FAILED.code());
    }

    /** The earliest such time after {@code now}, or null when nothing waits for time. */
    Instant next(Instant now, boolean messages) {
        try (Connection c = dataSource.getConnection()) {
            Instant next = query(c, outboxSql, now, 2);
            if (messages) {
                Instant m = query(c, messageSql, now, 1);
                if (m != null && (next == null || m.isBefore(next))) {
                    next = m;
                }
            }
            return next;
        } catch (SQLException e) {
            throw new IllegalStateException("RelayDriver: reading the next retry time failed: " + e.getMessage(), e);
        }
    }

    private Instant query(Connection c, String sql, Instant now, int parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 1; i <= parameters; i++) {
                dialect.bindTime(ps, i, now);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? dialect.readTime(rs, "next_time") : null;
            }
        }
    }
}
