package dev.postbox.outbox;

/** {@code publish_status} of an outbox event; {@link #code()} is the value stored in the column. */
public enum OutboxStatus {
    /** Written with the business change, waiting to be published. */
    PENDING(0),
    /** Leased by a relay ({@code locked_by}, {@code lock_until}) and being published. */
    PUBLISHING(1),
    /** Accepted by the target channel. Terminal. */
    PUBLISHED(2),
    /** The last attempt failed; the relay retries at {@code next_retry_time}. */
    FAILED(3),
    /** Will not be published. Terminal. */
    CANCELLED(4),
    /** Retries exhausted or the failure cannot be retried; only a person moves it on (retry or cancel). */
    DEAD(5);

    private final int code;

    OutboxStatus(int code) {
        this.code = code;
    }

    /** The stored value, 0..5. */
    public int code() {
        return code;
    }

    /** The status stored as {@code code}. */
    public static OutboxStatus of(int code) {
        if (code < 0 || code >= values().length) {
            throw new IllegalArgumentException("unknown publish_status " + code);
        }
        return values()[code];
    }
}
