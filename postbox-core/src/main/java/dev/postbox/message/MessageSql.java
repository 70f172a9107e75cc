package dev.postbox.message;

import dev.postbox.internal.poll.ClaimSpec;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.List;

/**
 * What the worker's statements on the message table share: parameter lists, the common select, the
 * claim's spec, claimed rows.
 */
final class MessageSql {

    /** Reads one row of a result. */
    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private MessageSql() {
    }

    /** {@code n} parameters: {@code ?, ?, ?}. */
    static String parameters(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /**
     * What the engine's claim needs to know about the message table: PENDING events, and FAILED ones whose
     * {@code next_retry_time} has passed, of {@code types}, not deleted, move to PROCESSING; the claim
     * stamps {@code last_handle_time} and {@code update_time}; MySQL reads candidates along
     * {@code idx_status_retry_time}.
     */
    static ClaimSpec<MessageRecord, MessageStatus> claimSpec(String table, List<String> types) {
        return new ClaimSpec<>(table,
                new ClaimSpec.Rows<MessageRecord>(MessageRows.COLUMNS, MessageRows::read, MessageRecord::id,
                        MessageRecord::version, MessageSql::processing),
                new ClaimSpec.Statuses<MessageStatus>("event_status", MessageStatus::code, MessageStatus.PENDING,
                        MessageStatus.FAILED, MessageStatus.PROCESSING),
                new ClaimSpec.Columns("next_retry_time", "version", "last_handle_time", "update_time"),
                ClaimSpec.Filter.in("e.deleted = 0", "e.event_type", types),
                new ClaimSpec.Index("idx_status_retry_time", "e.next_retry_time, e.retry_count, e.id"));
    }

    /**
     * Runs one of the worker's selects, whose parameters are [time,] the event types, the limit; hands each
     * row to {@code reader}. {@code now} null: the select has no time parameter.
     */
    static void query(Connection c, Dialect dialect, String sql, Instant now, List<String> types, int limit,
                      RowReader reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (now != null) {
                dialect.bindTime(ps, i++, now);
            }
            for (String t : types) {
                ps.setString(i++, t);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    /** {@code r} as a claim at {@code now} left it: PROCESSING, handled now, the next version. */
    static MessageRecord processing(MessageRecord r, Instant now) {
        return new MessageRecord(r.id(), r.eventNo(), r.eventType(), r.bizType(), r.bizId(), r.source(), r.payload(),
                MessageStatus.PROCESSING, r.retryCount(), r.maxRetryCount(), r.nextRetryTime(), now, r.successTime(),
                r.failReason(), r.traceId(), r.traceContext(), r.remark(), r.version() + 1, r.createTime(), now);
    }

    /** {@code r} as a refresh at {@code now} left it: handled now, the next version. */
    static MessageRecord touched(MessageRecord r, Instant now) {
        return new MessageRecord(r.id(), r.eventNo(), r.eventType(), r.bizType(), r.bizId(), r.source(), r.payload(),
                r.status(), r.retryCount(), r.maxRetryCount(), r.nextRetryTime(), now, r.successTime(),
                r.failReason(), r.traceId(), r.traceContext(), r.remark(), r.version() + 1, r.createTime(), now);
    }
}
