package dev.postbox.message;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One stored row of {@code biz_message_event}. Times are instants; nullable columns are null when unset.
 *
 * @param traceContext the headers of the write's trace context ({@code trace_context}: {@code traceparent},
 *                     {@code tracestate}, {@code baggage} or whatever the tracer's propagator injected); empty when
 *                     the write was not traced. The worker's {@code process} span is the child of this context.
 */
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
        Map<String, String> traceContext,
        String remark,
        int version,
        Instant createTime,
        Instant updateTime) {

    /** A null trace context is an empty one; the map is copied in its order, unmodifiable, without null entries. */
    public MessageRecord {
        if (traceContext == null || traceContext.isEmpty()) {
            traceContext = Map.of();
        } else {
            Map<String, String> copy = new LinkedHashMap<>();
            traceContext.forEach((k, v) -> {
                if (k != null && v != null) {
                    copy.put(k, v);
                }
            });
            traceContext = Collections.unmodifiableMap(copy);
        }
    }

    /**
     * A row without a trace context (what a schema before version 10 held), kept for code that built records before
     * {@link #traceContext()} existed.
     */
    public MessageRecord(long id, String eventNo, String eventType, String bizType, String bizId, String source,
                         String payload, MessageStatus status, int retryCount, int maxRetryCount, Instant nextRetryTime,
                         Instant lastHandleTime, Instant successTime, String failReason, String traceId, String remark,
                         int version, Instant createTime, Instant updateTime) {
        this(id, eventNo, eventType, bizType, bizId, source, payload, status, retryCount, maxRetryCount, nextRetryTime,
                lastHandleTime, successTime, failReason, traceId, Map.of(), remark, version, createTime, updateTime);
    }
}
