package dev.postbox.message;

/** {@code event_status} of a message event; {@link #code()} is the value stored in the column. */
public enum MessageStatus {
    /** Created, waiting to be handled. */
    PENDING(0),
    /** Claimed by a worker and being handled. */
    PROCESSING(1),
    /** Handled. Terminal. */
    SUCCEEDED(2),
    /** The last attempt failed; due again at {@code next_retry_time}. */
    FAILED(3),
    /** Will not be handled. Terminal. */
    CANCELLED(4),
    /** Retries exhausted or the failure cannot be retried; only a person moves it on. */
    DEAD(5);

    private final int code;

    MessageStatus(int code) {
        this.code = code;
    }

    /** The stored value, 0..5. */
    public int code() {
        return code;
    }

    /** The status stored as {@code code}. */
    public static MessageStatus of(int code) {
        if (code < 0 || code >= values().length) {
            throw new IllegalArgumentException("unknown event_status " + code);
        }
        return values()[code];
    }
}
