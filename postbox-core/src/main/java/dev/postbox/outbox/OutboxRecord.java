package dev.postbox.outbox;

import java.time.Instant;
import java.util.Map;

/**
 * One stored row of {@code biz_outbox_event}, as read back by the queries and the relay. Times are
 * instants (UTC on every database); nullable columns are null when unset. {@code retryCount} counts
 * failed publish attempts only; {@code leaseExpiries} counts the times another relay took the event over
 * because the relay holding it stopped (crashed, killed) before recording an outcome.
 */
public record OutboxRecord(
        long id,
        String eventNo,
        String aggregateType,
        String aggregateId,
        String eventType,
        int eventVersion,
        String source,
        String channel,
        String topic,
        String routingKey,
        String payload,
        Map<String, String> headers,
        OutboxStatus status,
        int retryCount,
        int maxRetryCount,
        Instant nextRetryTime,
        String lockedBy,
        Instant lockUntil,
        Instant lastPublishTime,
        Instant publishedTime,
        String failReason,
        String traceId,
        String remark,
        int version,
        Instant createTime,
        Instant updateTime,
        int leaseExpiries) {

    /** A record with no lease expiries (as written, or read from a schema before version 4). */
    public OutboxRecord(long id, String eventNo, String aggregateType, String aggregateId, String eventType,
                        int eventVersion, String source, String channel, String topic, String routingKey,
                        String payload, Map<String, String> headers, OutboxStatus status, int retryCount,
                        int maxRetryCount, Instant nextRetryTime, String lockedBy, Instant lockUntil,
                        Instant lastPublishTime, Instant publishedTime, String failReason, String traceId,
                        String remark, int version, Instant createTime, Instant updateTime) {
        this(id, eventNo, aggregateType, aggregateId, eventType, eventVersion, source, channel, topic, routingKey,
                payload, headers, status, retryCount, maxRetryCount, nextRetryTime, lockedBy, lockUntil,
                lastPublishTime, publishedTime, failReason, traceId, remark, version, createTime, updateTime, 0);
    }
}
