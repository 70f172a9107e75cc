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
 * @param attempted  false for a {@link Kind#RETRY} that never reached the target ({@link #notSent}): held back by
 *                   the publisher itself (a destination paused or at its in-flight bound), so it does not count
 *                   against the event's retries and can never make it DEAD
 */
public record PublishResult(Kind kind, String reason, Duration retryAfter, boolean attempted) {

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
        if (!attempted && kind != Kind.RETRY) {
            throw new IllegalArgumentException("only a RETRY can be not attempted, not " + kind);
        }
    }

    /** An outcome of an attempt that reached (or tried to reach) the target. */
    public PublishResult(Kind kind, String reason, Duration retryAfter) {
        this(kind, reason, retryAfter, true);
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

    /**
     * The event was not sent at all: the publisher held it back (its destination paused, or at its in-flight
     * bound). The relay records it FAILED with {@code reason} and tries it again after {@code retryAfter} (or the
     * retry policy's first delay when null) without counting a retry: backpressure never makes an event DEAD.
     * Per-aggregate order holds as for any failure: the aggregate's later events wait for it.
     */
    public static PublishResult notSent(String reason, Duration retryAfter) {
        return new PublishResult(Kind.RETRY, reason, retryAfter, false);
    }

    public static PublishResult dead(String reason) {
        return new PublishResult(Kind.DEAD, reason, null);
    }
}
