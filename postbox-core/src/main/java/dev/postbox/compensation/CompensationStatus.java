package dev.postbox.compensation;

/** {@code compensate_status} of a compensation-log row. */
public enum CompensationStatus {
    /** The action is running in a transaction that has not committed yet (never seen committed unless misused). */
    RUNNING,
    /** The action ran and committed. Terminal: it never runs again for this key. */
    DONE,
    /** The action threw; its changes were rolled back and {@code last_error} says why. It may run again. */
    FAILED
}
