package dev.postbox.inbox;

/**
 * Told what each {@link Inbox#once} call came to, for every use of the inbox (an {@link EnvelopeConsumer}, a
 * framework's listener container, or a direct call): metrics of the duplicate rate per consumer. Set once per
 * Postbox ({@code Postbox.builder(...).inboxListener(...)}). Each hook runs on the caller's thread inside its
 * transaction, before the caller commits, so it must be quick; what it throws is logged and ignored. A RAN whose
 * transaction later fails to commit has still been reported as RAN (the redelivery then runs again). Thread-safe
 * implementations only. {@link #NOOP} does nothing.
 */
public interface InboxListener {

    /** Reports nothing. */
    InboxListener NOOP = new InboxListener() { };

    /** The work of {@code consumer} for {@code eventNo} ran ({@code RAN}) or was skipped as a duplicate ({@code DUPLICATE}). */
    default void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
    }

    /** The work (or the consume-log insert) of {@code consumer} for {@code eventNo} failed; nothing of it stays. */
    default void failed(String consumer, String eventNo, Throwable failure) {
    }
}
