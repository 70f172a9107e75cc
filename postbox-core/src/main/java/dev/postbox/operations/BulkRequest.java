package dev.postbox.operations;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;

/**
 * A bulk action: {@code action} on every event of {@code kind} that matches {@code query} (the search
 * language) and is in a status the action applies to, at most {@code cap} of them.
 *
 * @param action RETRY or CANCEL
 * @param query  the search, e.g. {@code status:dead topic:orders after:2h}
 * @param cap    the most events it may change, 1..{@value #MAX_CAP}
 * @param reason why, 1..500 characters; recorded with every change
 */
public record BulkRequest(EventKind kind, Action action, String query, int cap, String reason) {

    /** Largest cap of one bulk action. */
    public static final int MAX_CAP = 10_000;

    /** What a bulk action does to each event. */
    public enum Action { RETRY, CANCEL }

    public BulkRequest {
        if (kind == null) {
            throw new ValidationException("kind", "is required (OUTBOX or MESSAGE)");
        }
        if (action == null) {
            throw new ValidationException("action", "is required (RETRY or CANCEL)");
        }
        Check.required("query", query, dev.postbox.query.SearchQuery.MAX_LENGTH);
        Check.range("cap", cap, 1, MAX_CAP);
        Check.required("reason", reason, 500);
    }
}
