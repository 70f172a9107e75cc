package dev.postbox.operations;

import java.time.Instant;

/**
 * One thing that happened to an event.
 *
 * @param kind      CREATED, ATTEMPT_FAILED, DEAD, LEASE_EXPIRED, RETRIED, CANCELLED, REVEALED, PUBLISHED or HANDLED
 * @param who       the relay/worker instance or the operator; null for CREATED and for rows from before schema 8
 * @param attempt   the retry count after a failed attempt, else null
 * @param detail    the error of a failed attempt, the reason of an admin action
 * @param nextRetry when the retry after a failed attempt is due
 * @param actionId  the audit entry of an admin action, else null
 */
public record TimelineEntry(Instant time, String kind, String who, Integer attempt, String detail, Instant nextRetry,
                            Long actionId) {
}
