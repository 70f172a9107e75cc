package dev.postbox.compensation;

/**
 * What {@link Compensations#once} did.
 *
 * @param outcome  see {@link Outcome}
 * @param value    the action's return value when it ran and succeeded, otherwise null
 * @param attempts attempts recorded for this key after the call
 * @param error    the action's exception when the outcome is FAILED, otherwise null
 * @param <T>      the action's value type
 */
public record CompensationResult<T>(Outcome outcome, T value, int attempts, Throwable error) {

    /** The four ways a call ends. */
    public enum Outcome {
        /** The action ran and succeeded; the log row is DONE in the caller's transaction. */
        DONE,
        /** An earlier call already completed this compensation; nothing ran. */
        ALREADY_DONE,
        /**
         * The action threw: its changes were rolled back to a savepoint and the log row records FAILED, the
         * attempt and the error in the caller's transaction, which should still commit to keep that record.
         */
        FAILED,
        /**
         * Earlier attempts failed and the attempt limit is used up, or the log row was left RUNNING by an
         * action that committed its transaction halfway: nothing ran; a person decides.
         */
        GAVE_UP
    }

    /** True when the action ran and succeeded in this call. */
    public boolean ran() {
        return outcome == Outcome.DONE;
    }
}
