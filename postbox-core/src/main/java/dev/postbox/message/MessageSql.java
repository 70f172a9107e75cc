package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/** What the worker's statements on the message table share: parameter lists, the common select, claimed rows. */
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

    /** The message columns, each qualified by {@code alias}: {@code u.id, u.event_no, ...}. */
    static String qualified(String alias) {
        return Arrays.stream(MessageRows.COLUMNS.split(",")).map(col -> alias + "." + col.strip())
                .collect(Collectors.joining(", "));
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
                r.failReason(), r.traceId(), r.remark(), r.version() + 1, r.createTime(), now);
    }

    /** {@code r} as a refresh at {@code now} left it: handled now, the next version. */
    static MessageRecord touched(MessageRecord r, Instant now) {
        return new MessageRecord(r.id(), r.eventNo(), r.eventType(), r.bizType(), r.bizId(), r.source(), r.payload(),
                r.status(), r.retryCount(), r.maxRetryCount(), r.nextRetryTime(), now, r.successTime(),
                r.failReason(), r.traceId(), r.remark(), r.version() + 1, r.createTime(), now);
    }
}
