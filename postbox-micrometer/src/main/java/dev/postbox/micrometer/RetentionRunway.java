package dev.postbox.micrometer;

import dev.postbox.retention.Retention;

import java.time.Duration;
import java.time.Instant;

/**
 * The outbox's partition runway as the meters and the starter show it (the {@code postbox.retention.partition.runway} gauge
 * and the health details): the runway the last successful retention run left ({@link Retention.Status#partitionRunway()}),
 * less the time since that run ended, so that it shrinks while no run succeeds, as the real runway does. Read from
 * the status only, never from the database. For the meters and the health checks; not an application API.
 */
public final class RetentionRunway {

    private RetentionRunway() {
    }

    /** The runway at {@code now}, or null before a successful run of the partitions strategy in this instance. */
    public static Duration at(Retention.Status s, Instant now) {
        if (s.partitionRunway() == null) {
            return null;
        }
        if (s.lastSuccess() == null || !now.isAfter(s.lastSuccess())) {
            return s.partitionRunway();
        }
        return s.partitionRunway().minus(Duration.between(s.lastSuccess(), now));
    }
}
