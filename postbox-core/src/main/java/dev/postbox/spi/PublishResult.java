package dev.postbox.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of publishing one event: accepted, failed but worth retrying, or failed for good.
 *
 * @param kind       what happened
 * @param reason     why it failed (null on success); stored in {@code fail_reason}, so it must not
 *                   contain the payload
 * @param retryAfter for {@link Kind#RETRY}: the earliest time to retry that the target asked for (e.g.
 *                   HTTP Retry-After), or null to let the retry policy decide
 */
public record PublishResult(Kind kind, String reason, Duration retryAfter) {

    /** What happened to one event. */
    public enum Kind {
        /** The target accepted the event. */
        PUBLISHED,
        /** A failure that may go away: timeout, broker down, 5xx. */
        RETRY,
        /** A failure that will not go away by retrying: message too large, 4xx, unknown route. */
        DEAD
    }

    private static final PublishResult PUBLISHED = new PublishResult(Kind.PUBLISHED, null, null);

    public PublishResult {
        Objects.requireNonNull(kind, "kind");
        if (kind != Kind.PUBLISHED && (reason == null || reason.isBlank())) {
            throw new IllegalArgumentException("a failure needs a reason");
        }
    }

    public static PublishResult published() {
        return PUBLISHED;
    }

    public static PublishResult retry(String reason) {
        return new PublishResult(Kind.RETRY, reason, null);
    }

    public static PublishResult retryAfter(String reason, Duration after) {
        return new PublishResult(Kind.RETRY, reason, after);
    }

    public static PublishResult dead(String reason) {
        return new PublishResult(Kind.DEAD, reason, null);
    }
}
