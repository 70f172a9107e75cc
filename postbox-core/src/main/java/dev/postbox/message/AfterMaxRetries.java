package dev.postbox.message;

/**
 * What a worker does with an event whose last allowed attempt failed (seed 000: "超过最大重试次数后停止重试").
 */
public enum AfterMaxRetries {
    /**
     * DEAD: kept for a person to retry or cancel. The default, and the only right choice for critical
     * events (payments, refunds, stock), which seed 000 says must never be cancelled automatically.
     */
    DEAD,
    /**
     * CANCELLED: the event is first recorded FAILED with its last reason and then cancelled
     * (seed 000's {@code FAILED -> CANCELLED} once {@code retry_count >= max_retry_count}), for events
     * that lose their meaning when late.
     */
    CANCELLED
}
