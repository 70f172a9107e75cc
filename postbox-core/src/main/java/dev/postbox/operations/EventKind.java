package dev.postbox.operations;

/** Which event table an operation addresses. */
public enum EventKind {
    /** {@code biz_outbox_event}: events the relay publishes. */
    OUTBOX,
    /** {@code biz_message_event}: events message workers handle. */
    MESSAGE
}
