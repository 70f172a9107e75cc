package dev.postbox.inbox;

/**
 * What {@link Inbox#once} did.
 *
 * @param outcome RAN or DUPLICATE
 * @param value   the work's return value when it ran, otherwise null
 * @param <T>     the work's value type
 */
public record InboxResult<T>(Outcome outcome, T value) {

    /** Whether the work ran this time. */
    public enum Outcome {
        /** The event was new to this consumer: the work ran and its log row awaits the caller's commit. */
        RAN,
        /** The consumer already consumed this event: nothing ran; acknowledge the delivery. */
        DUPLICATE
    }

    /** True when the work ran. */
    public boolean ran() {
        return outcome == Outcome.RAN;
    }

    /** True when the delivery was a duplicate and nothing ran. */
    public boolean duplicate() {
        return outcome == Outcome.DUPLICATE;
    }
}
