package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.common.ValidationException;
import dev.postbox.query.Queries;
import dev.postbox.retention.Retention;
import dev.postbox.spring.autoconfigure.RelayLifecycle;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;

/**
 * postbox-micrometer's {@link dev.postbox.micrometer.BacklogMonitor} started and stopped with the application
 * context (in the relay's phase): the source of the starter's backlog gauges and of the health check's fresh reads.
 */
public final class BacklogMonitor extends dev.postbox.micrometer.BacklogMonitor implements SmartLifecycle {

    /**
     * @param queries  where the backlogs are read
     * @param interval how often; positive ({@code postbox.metrics.refresh-interval})
     */
    public BacklogMonitor(Queries queries, Duration interval) {
        super(queries, checked(interval));
    }

    /**
     * @param queries   where the backlogs are read
     * @param interval  how often; positive ({@code postbox.metrics.refresh-interval})
     * @param retention whose {@link Retention#size table sizes} are read too, or null (retention off)
     */
    public BacklogMonitor(Queries queries, Duration interval, Retention retention) {
        super(queries, checked(interval), retention);
    }

    /**
     * @param queries   where the backlogs are read
     * @param interval  how often; positive ({@code postbox.metrics.refresh-interval})
     * @param retention passed on, or null
     * @param jobs      the application's compensation jobs, whose pending compensations are read
     */
    public BacklogMonitor(Queries queries, Duration interval, Retention retention,
                          java.util.Collection<dev.postbox.compensation.CompensationJob> jobs) {
        super(queries, checked(interval), retention, jobs);
    }

    private static Duration checked(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new ValidationException("postbox.metrics.refresh-interval", "must be positive, was " + interval);
        }
        return interval;
    }

    @Override
    public int getPhase() {
        return RelayLifecycle.PHASE;
    }
}
