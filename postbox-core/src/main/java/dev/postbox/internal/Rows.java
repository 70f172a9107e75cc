package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps result rows to records. Every query selects {@link #OUTBOX_COLUMNS} or {@link #MESSAGE_COLUMNS}. */
public final class Rows {

    public static final String OUTBOX_COLUMNS = "id, event_no, aggregate_type, aggregate_id, event_type, event_version,"
            + " event_source, publish_channel, topic, routing_key, event_payload, event_headers, publish_status,"
            + " retry_count, max_retry_count, next_retry_time, locked_by, lock_until, last_publish_time,"
            + " published_time, fail_reason, trace_id, remark, version, create_time, update_time, lease_expiries";

    public static final String MESSAGE_COLUMNS = "id, event_no, event_type, biz_type, biz_id, event_source,"
            + " event_payload, event_status, retry_count, max_retry_count, next_retry_time, last_handle_time,"
            + " success_time, fail_reason, trace_id, remark, version, create_time, update_time";

    private Rows() {
    }

    public static OutboxRecord outbox(ResultSet rs, Dialect d) throws SQLException {
        return new OutboxRecord(
                rs.getLong("id"),
                rs.getString("event_no"),
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getString("event_type"),
                rs.getInt("event_version"),
                rs.getString("event_source"),
                rs.getString("publish_channel"),
                rs.getString("topic"),
                rs.getString("routing_key"),
                rs.getString("event_payload"),
                Json.readHeaders(rs.getString("event_headers")),
                OutboxStatus.of(rs.getInt("publish_status")),
                rs.getInt("retry_count"),
                rs.getInt("max_retry_count"),
                d.readTime(rs, "next_retry_time"),
                rs.getString("locked_by"),
                d.readTime(rs, "lock_until"),
                d.readTime(rs, "last_publish_time"),
                d.readTime(rs, "published_time"),
                rs.getString("fail_reason"),
                rs.getString("trace_id"),
                rs.getString("remark"),
                rs.getInt("version"),
                d.readTime(rs, "create_time"),
                d.readTime(rs, "update_time"),
                rs.getInt("lease_expiries"));
    }

    public static MessageRecord message(ResultSet rs, Dialect d) throws SQLException {
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
                rs.getString("remark"),
                rs.getInt("version"),
                d.readTime(rs, "create_time"),
                d.readTime(rs, "update_time"));
    }
}
