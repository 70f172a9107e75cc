package dev.postbox.spring.autoconfigure;

import dev.postbox.retention.Retention;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.util.Objects;

/**
 * Starts the {@link Retention} bean's schedule when the application context has started and closes it (waits for
 * the run in progress, gives the retention lease back) before the context's beans go, like the compensation jobs.
 * Every instance of the application starts it; the core's lease makes one of them the runner. A retention once
 * closed does not start again: a context stopped and started again runs no retention (a WARN says so).
 */
public final class RetentionLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RetentionLifecycle.class);

    private final Retention retention;
    private boolean running;
    private boolean closed;

    RetentionLifecycle(Retention retention) {
        this.retention = Objects.requireNonNull(retention, "retention");
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        if (closed) {
            log.warn("Postbox retention {} was stopped with the context and does not start again; restart the"
                    + " application to run it", retention.instanceId());
            return;
        }
        retention.start();
        running = true;
        log.info("Postbox retention {} started: {}", retention.instanceId(), retention.policy());
    }

    @Override
    public synchronized void stop() {
        if (running) {
            running = false;
            closed = true;
            retention.close();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * Just below the relay's phase: starts just before, and stops just after, the relay and the metrics' backlog
     * monitor, whose loop reads the table sizes through this retention's pool until it has stopped.
     */
    @Override
    public int getPhase() {
        return RelayLifecycle.PHASE - 1;
    }

    /** The retention this lifecycle runs. */
    public Retention retention() {
        return retention;
    }
}
