package dev.postbox.outbox;

import java.time.Instant;
import java.util.Map;

/**
 * One stored row of {@code biz_outbox_event}, as read back by the queries and the relay. Times are
 * instants (UTC on every database); nullable columns are null when unset.
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
        Instant updateTime) {
}
