package dev.postbox.operations;

import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;
import dev.postbox.message.MessageRows;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/**
 * What differs between the outbox and the message table for the console: names of the table, its archive and
 * its columns, the status names, the manual transitions. One instance per kind and table prefix.
 *
 * @param keyType       the column of the business key's type (aggregate_type, biz_type)
 * @param keyId         the column of the business key's id (aggregate_id, biz_id)
 * @param detailColumns every column but the payload and the headers, in table order
 * @param successTime   the column set when the event was published or handled
 * @param headersColumn the JSON object of headers: the outbox's event_headers, the message table's trace_context
 *                      (the write's trace headers); a detail page lists their names, never their values
 */
record EventTable(EventKind kind, String table, String archive, String statusColumn, String keyType, String keyId,
                  String summaryColumns, List<String> detailColumns, String successTime, String retrySet,
                  String cancelSet, String headersColumn) {

    /** Statuses a retry applies to: FAILED, DEAD (the same codes in both tables). */
    static final Set<Integer> RETRYABLE = Set.of(OutboxStatus.FAILED.code(), OutboxStatus.DEAD.code());
    /** Statuses a cancel applies to: PENDING, FAILED, DEAD. */
    static final Set<Integer> CANCELLABLE = Set.of(OutboxStatus.PENDING.code(), OutboxStatus.FAILED.code(),
            OutboxStatus.DEAD.code());
    /** Columns stored as instants. */
    static final Set<String> TIME_COLUMNS = Set.of("next_retry_time", "lock_until", "last_publish_time",
            "published_time", "last_handle_time", "success_time", "create_time", "update_time", "archived_time");

    static EventTable of(EventKind kind, TableNames t) {
        return switch (kind) {
            case OUTBOX -> new EventTable(kind, t.outbox(), t.outboxArchive(), "publish_status", "aggregate_type",
                    "aggregate_id", "id, event_no, aggregate_type, aggregate_id, event_type, publish_channel, topic,"
                    + " publish_status, retry_count, max_retry_count, fail_reason, trace_id, create_time, update_time",
                    List.of("id", "event_no", "aggregate_type", "aggregate_id", "event_type", "event_version",
                            "event_source", "publish_channel", "topic", "routing_key", "publish_status", "retry_count",
                            "max_retry_count", "next_retry_time", "locked_by", "lock_until", "last_publish_time",
                            "published_time", "fail_reason", "trace_id", "remark", "version", "deleted", "create_time",
                            "update_time", "lease_expiries"),
                    "published_time", OutboxRows.RETRY_SET, OutboxRows.CANCEL_SET, "event_headers");
            case MESSAGE -> new EventTable(kind, t.message(), t.messageArchive(), "event_status", "biz_type", "biz_id",
                    "id, event_no, biz_type, biz_id, event_type, event_status, retry_count, max_retry_count,"
                    + " fail_reason, trace_id, create_time, update_time",
                    List.of("id", "event_no", "event_type", "biz_type", "biz_id", "event_source", "event_status",
                            "retry_count", "max_retry_count", "next_retry_time", "last_handle_time", "success_time",
                            "fail_reason", "trace_id", "remark", "version", "deleted", "create_time", "update_time"),
                    "success_time", MessageRows.RETRY_SET, MessageRows.CANCEL_SET, "trace_context");
        };
    }

    /** The name of status {@code code} in this table (PUBLISHED or SUCCEEDED, ...). */
    String statusName(int code) {
        return kind == EventKind.OUTBOX ? OutboxStatus.of(code).name() : MessageStatus.of(code).name();
    }

    /** Whether this table's events have a topic and a channel. */
    boolean routes() {
        return kind == EventKind.OUTBOX;
    }

    /** An outbox event as a list shows it. */
    static EventSummary summary(dev.postbox.outbox.OutboxRecord r, boolean archived) {
        return new EventSummary(EventKind.OUTBOX, r.id(), r.eventNo(), r.aggregateType(), r.aggregateId(), r.eventType(),
                r.channel(), r.topic(), r.status().name(), r.retryCount(), r.maxRetryCount(), r.failReason(), r.traceId(),
                r.createTime(), r.updateTime(), archived);
    }

    /** A message event as a list shows it. */
    static EventSummary summary(dev.postbox.message.MessageRecord r, boolean archived) {
        return new EventSummary(EventKind.MESSAGE, r.id(), r.eventNo(), r.bizType(), r.bizId(), r.eventType(), null, null,
                r.status().name(), r.retryCount(), r.maxRetryCount(), r.failReason(), r.traceId(), r.createTime(),
                r.updateTime(), archived);
    }

    /** The summary of the current row of {@code rs}, which selected {@link #summaryColumns}. */
    EventSummary summary(ResultSet rs, Dialect d, boolean archived) throws SQLException {
        return new EventSummary(kind, rs.getLong("id"), rs.getString("event_no"), rs.getString(keyType),
                rs.getString(keyId), rs.getString("event_type"), routes() ? rs.getString("publish_channel") : null,
                routes() ? rs.getString("topic") : null, statusName(rs.getInt(statusColumn)), rs.getInt("retry_count"),
                rs.getInt("max_retry_count"), rs.getString("fail_reason"), rs.getString("trace_id"),
                d.readTime(rs, "create_time"), d.readTime(rs, "update_time"), archived);
    }
}
