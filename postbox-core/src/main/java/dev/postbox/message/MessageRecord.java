package dev.postbox.message;

import java.time.Instant;

/** One stored row of {@code biz_message_event}. Times are instants; nullable columns are null when unset. */
public record MessageRecord(
        long id,
        String eventNo,
        String eventType,
        String bizType,
        String bizId,
        String source,
        String payload,
        MessageStatus status,
        int retryCount,
        int maxRetryCount,
        Instant nextRetryTime,
        Instant lastHandleTime,
        Instant successTime,
        String failReason,
        String traceId,
        String remark,
        int version,
        Instant createTime,
        Instant updateTime) {
}
