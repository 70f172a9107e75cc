package dev.postbox.operations;

import java.time.Instant;

/**
 * One event as a list shows it (search results, an aggregate's sequence, a bulk sample): never its payload.
 *
 * @param key      the aggregate id of an outbox event, the biz id of a message event
 * @param keyType  its aggregate type / biz type
 * @param route    topic (outbox) or null (message)
 * @param status   the status name (PENDING, PUBLISHING/PROCESSING, PUBLISHED/SUCCEEDED, FAILED, CANCELLED, DEAD)
 * @param archived true when read from the archive table
 */
public record EventSummary(EventKind kind, long id, String eventNo, String keyType, String key, String eventType,
                           String channel, String route, String status, int retryCount, int maxRetryCount,
                           String failReason, String traceId, Instant createTime, Instant updateTime,
                           boolean archived) {
}
