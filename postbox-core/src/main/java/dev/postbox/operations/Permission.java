package dev.postbox.operations;

/** What an {@link Operator} may do. {@link Role}s are named sets of these. */
public enum Permission {
    /** Overview, search, event detail (without payload), blocked aggregates, audit log. */
    VIEW,
    /** Retry one event, the head of an aggregate, or a compensation. */
    RETRY,
    /** Cancel one event, the head of an aggregate, or a whole sequence. */
    CANCEL,
    /** Retry or cancel every event matching a filter (after a dry run). */
    BULK,
    /** See an event's payload and headers (after the redaction hook). */
    REVEAL_PAYLOAD
}
