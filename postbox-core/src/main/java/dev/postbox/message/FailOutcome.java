package dev.postbox.message;

/** What recording a failed attempt did. */
public enum FailOutcome {
    /** retry_count was incremented and the event is FAILED, due again at next_retry_time. */
    RETRY_SCHEDULED,
    /** The failure used up the last retry (or cannot be retried): the event is DEAD. */
    DEAD,
    /** Nothing changed: the event was not PROCESSING (another worker recorded it, or it was cancelled). */
    NOT_PROCESSING
}
