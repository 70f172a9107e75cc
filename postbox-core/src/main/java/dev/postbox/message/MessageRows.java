package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The columns and row mapping of the message table ({@code biz_message_event}), kept next to
 * {@link MessageRecord} so that a new column changes one package. Used by Postbox's own packages (the
 * worker's claims, the queries); every query that maps message rows selects {@link #COLUMNS}. Not an API
 * for applications: it follows the schema, not a compatibility promise.
 */
public final class MessageRows {

    /** Every column of the message table, in the order of the record; one line of SQL. */
    public static final String COLUMNS = """
            id, event_no, event_type, biz_type, biz_id, event_source, event_payload, event_status, \
            retry_count, max_retry_count, next_retry_time, last_handle_time, success_time, fail_reason, \
            trace_id, trace_context, remark, version, create_time, update_time""";

    /** The SET list of a person's retry (from FAILED or DEAD): PENDING with a fresh set of retries, no retry time. */
    public static final String RETRY_SET = "event_status = %d, retry_count = 0, next_retry_time = NULL"
            .formatted(MessageStatus.PENDING.code());

    /** The SET list of a person's cancel (from PENDING, FAILED or DEAD): CANCELLED, no retry time. */
    public static final String CANCEL_SET = "event_status = %d, next_retry_time = NULL".formatted(MessageStatus.CANCELLED.code());

    private MessageRows() {
    }

    /**
     * The stored trace context; one that is not a JSON object of strings (written by hand) counts as none: a trace
     * context never stops the worker from reading its events.
     */
    static java.util.Map<String, String> traceContext(String json) {
        try {
            return dev.postbox.internal.Json.readHeaders(json);
        } catch (dev.postbox.common.PostboxException notHeaders) {
            return java.util.Map.of();
        }
    }

    /** The record of the current row of {@code rs}, which selected {@link #COLUMNS}; times read through {@code d}. */
    public static MessageRecord read(ResultSet rs, Dialect d) throws SQLException {
        return new MessageRecord(
                rs.getLong("id"),
                rs.getString("event_no"),
                rs.getString("event_type"),
                rs.getString("biz_type"),
                rs.getString("biz_id"),
                rs.getString("event_source"),
                rs.getString("event_payload"),
                MessageStatus.of(rs.getInt("event_status")),
                rs.getInt("retry_count"),
                rs.getInt("max_retry_count"),
                d.readTime(rs, "next_retry_time"),
                d.readTime(rs, "last_handle_time"),
                d.readTime(rs, "success_time"),
                rs.getString("fail_reason"),
                rs.getString("trace_id"),
                traceContext(rs.getString("trace_context")),
                rs.getString("remark"),
                rs.getInt("version"),
                d.readTime(rs, "create_time"),
                d.readTime(rs, "update_time"));
    }
}
