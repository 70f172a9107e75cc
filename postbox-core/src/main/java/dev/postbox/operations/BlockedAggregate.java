package dev.postbox.operations;

/**
 * An aggregate whose events stopped flowing: its first unfinished outbox event (the head) is DEAD or FAILED,
 * and the relay publishes nothing after it until the head is published, retried or cancelled.
 *
 * @param waitingBehind unfinished events after the head, counted up to {@link EventDetail#WAITING_CAP}
 * @param capped        true when there are at least that many
 */
public record BlockedAggregate(String aggregateType, String aggregateId, EventSummary head, long waitingBehind,
                               boolean capped) {
}
