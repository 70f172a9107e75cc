package dev.postbox.admin;

import dev.postbox.outbox.OutboxStatus;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which outbox events a bulk admin action applies to. Every condition given must hold; null means
 * "any". The action still only touches events whose status allows it.
 *
 * @param statuses      statuses to act on; null or empty means every status the action allows
 * @param topic         only this topic
 * @param eventType     only this event type
 * @param aggregateType only this aggregate type
 * @param createdBefore only events created before this instant
 * @param limit         at most this many events, 1..{@value #MAX_LIMIT}
 */
public record AdminFilter(Set<OutboxStatus> statuses, String topic, String eventType, String aggregateType,
                          Instant createdBefore, int limit) {

    /** Largest number of events one bulk action touches. */
    public static final int MAX_LIMIT = 10_000;

    public AdminFilter {
        statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        dev.postbox.internal.Check.range("limit", limit, 1, MAX_LIMIT);
    }

    /** Every event in {@code status}, up to {@code limit}. */
    public static AdminFilter status(OutboxStatus status, int limit) {
        return new AdminFilter(Set.of(status), null, null, null, null, limit);
    }

    public AdminFilter topic(String topic) {
        return new AdminFilter(statuses, topic, eventType, aggregateType, createdBefore, limit);
    }

    public AdminFilter eventType(String eventType) {
        return new AdminFilter(statuses, topic, eventType, aggregateType, createdBefore, limit);
    }

    public AdminFilter aggregateType(String aggregateType) {
        return new AdminFilter(statuses, topic, eventType, aggregateType, createdBefore, limit);
    }

    public AdminFilter createdBefore(Instant createdBefore) {
        return new AdminFilter(statuses, topic, eventType, aggregateType, createdBefore, limit);
    }
}
