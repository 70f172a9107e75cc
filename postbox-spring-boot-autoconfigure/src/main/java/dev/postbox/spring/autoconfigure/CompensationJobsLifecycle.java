package dev.postbox.spring.autoconfigure;

import dev.postbox.compensation.CompensationJob;
import org.springframework.context.SmartLifecycle;

import java.util.List;

/** Starts the application's {@link CompensationJob} beans on their schedules and stops them before the context's beans go. */
final class CompensationJobsLifecycle implements SmartLifecycle {

    private final List<CompensationJob> jobs;
    private volatile boolean running;

    CompensationJobsLifecycle(List<CompensationJob> jobs) {
        this.jobs = List.copyOf(jobs);
    }

    @Override
    public synchronized void start() {
        if (!running) {
            jobs.forEach(CompensationJob::start);
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            running = false;
            jobs.forEach(CompensationJob::close);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return RelayLifecycle.PHASE;
    }
}
