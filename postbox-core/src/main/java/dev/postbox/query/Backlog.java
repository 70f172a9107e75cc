package dev.postbox.query;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a table (the outbox, or the message events) still has to do, for metrics and health: how many events
 * wait in each unfinished status and how many are DEAD, and when the oldest unfinished one (PENDING,
 * PUBLISHING/PROCESSING or FAILED) was created.
 *
 * @param pending               PENDING events
 * @param inProgress            PUBLISHING outbox events (leased by a relay) or PROCESSING message events
 * @param failed                FAILED events waiting for their retry
 * @param dead                  DEAD events: a person must retry or cancel them
 * @param oldestUnfinishedTime  create_time of the oldest unfinished event, or null when there is none
 * @param readAt                when this was read, by the Postbox clock
 */
public record Backlog(long pending, long inProgress, long failed, long dead, Instant oldestUnfinishedTime, Instant readAt) {

    /** PENDING + PUBLISHING/PROCESSING + FAILED. */
    public long unfinished() {
        return pending + inProgress + failed;
    }

    /** How long the oldest unfinished event has waited at {@link #readAt}; empty when nothing waits. */
    public Optional<Duration> oldestUnfinishedAge() {
        if (oldestUnfinishedTime == null) {
            return Optional.empty();
        }
        Duration age = Duration.between(oldestUnfinishedTime, readAt);
        return Optional.of(age.isNegative() ? Duration.ZERO : age);
    }
}
