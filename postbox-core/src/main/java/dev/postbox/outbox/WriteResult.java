package dev.postbox.outbox;

/**
 * What a write did. A {@link Outcome#DUPLICATE} changed nothing: the row already stored under that
 * {@code event_no} keeps its payload, status, retry count and lease.
 *
 * @param eventNo the event's idempotency key (generated if the event had none)
 * @param outcome inserted or duplicate
 * @param id      the id the database assigned to the new row (positive; within an aggregate, id order is
 *                publication order); 0 for a duplicate (the existing row's id is not read)
 */
public record WriteResult(String eventNo, Outcome outcome, long id) {

    /** Whether a row was inserted or an existing row with the same {@code event_no} was found. */
    public enum Outcome { INSERTED, DUPLICATE }

    public boolean inserted() {
        return outcome == Outcome.INSERTED;
    }

    public boolean duplicate() {
        return outcome == Outcome.DUPLICATE;
    }
}
