package dev.postbox.message;

import dev.postbox.internal.AttemptLog;
import dev.postbox.internal.Settings;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Failures;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.tracing.LogContext;
import dev.postbox.tracing.TraceSpan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The policy of one {@link MessageWorker} cycle, run by any of its threads or by a caller: recovers events
 * stuck in PROCESSING (a failed attempt), claims a batch, runs each handler outside any transaction,
 * keeps the rest of a slow batch from looking stuck, and records the outcomes fenced by the claimed
 * version, telling the listener what was recorded, writing an attempt row for each failure recorded (in the
 * same transaction) and counting the outcomes into the heartbeat's window. Every database step is a short
 * transaction of its own on the worker's pool. Thread-safe: each caller brings its own {@link HandlerRunner}.
 */
final class WorkerCycles {

    private static final Logger log = LoggerFactory.getLogger(MessageWorker.class);
    /** Claims serialized where the database needs it: one at a time in this JVM, across all workers. */
    private static final String CLAIM_KIND = "message-worker-claim";

    private final Settings settings;
    private final WorkerConfig config;
    private final DataSource pool;
    private final BooleanSupplier stopping;
    private final WorkerStore store;
    private final FailurePolicy failurePolicy;
    private final String id;
    private final AttemptLog attempts;
    private final WindowStats stats;

    /**
     * @param stopping whether the worker is closing: no claim starts, no handler starts after it says so
     * @param stats    the heartbeat's window, into which every recorded outcome is counted
     */
    WorkerCycles(Settings settings, WorkerConfig config, DataSource pool, BooleanSupplier stopping, WindowStats stats) {
        this.settings = settings;
        this.config = config;
        this.pool = pool;
        this.stopping = stopping;
        this.store = new WorkerStore(settings.dialect(), settings.tables().message(), config.handlers().keySet());
        this.failurePolicy = new FailurePolicy(config);
        this.id = config.instanceId();
        this.attempts = new AttemptLog(settings.dialect(), settings.tables().eventAttempt(), settings.tables().message());
        this.stats = stats;
    }

    /** One cycle (recover, claim, handle, record) on the calling thread, its handlers run by {@code runner}. */
    WorkerCycle run(HandlerRunner runner) {
        long started = System.nanoTime();
        WorkerCycle cycle = cycleOnce(runner);
        if (cycle != WorkerCycle.EMPTY) {
            safely(() -> config.listener().cycle(id, cycle, Duration.ofNanos(System.nanoTime() - started)));
        }
        return cycle;
    }

    private WorkerCycle cycleOnce(HandlerRunner runner) {
        Instant now = settings.now();
        int recovered = recover(now);
        List<MessageRecord> pending = stopping.getAsBoolean() ? List.of() : claim(now);
        if (pending.isEmpty()) {
            return recovered == 0 ? WorkerCycle.EMPTY : new WorkerCycle(0, 0, 0, 0, 0, 0, 0, recovered);
        }
        Tally tally = new Tally(pending.size(), recovered);
        List<MessageRecord> succeeded = new ArrayList<>();
        List<WorkerStore.Failure> failures = new ArrayList<>();
        Duration touchEvery = config.stuckTimeout().dividedBy(4);
        Instant lastTouch = now;
        try {
            while (!pending.isEmpty()) {
                if (stopping.getAsBoolean()) {
                    release(pending, "released unhandled: worker " + id + " stopped", failures);
                    pending = List.of();
                    break;
                }
                Instant t = settings.now();
                if (Duration.between(lastTouch, t).compareTo(touchEvery) >= 0) {
                    // the rest of the batch has waited long: record what is done, keep the rest from looking stuck
                    record(succeeded, failures, tally);
                    pending = touch(pending, t);
                    lastTouch = t;
                    continue;
                }
                handle(runner, pending.remove(0), succeeded, failures);
            }
        } finally {
            if (!pending.isEmpty()) { // a failure while touching: give the rest back rather than leave it stuck
                release(pending, "released unhandled after an error", failures);
            }
            record(succeeded, failures, tally);
        }
        return tally.cycle();
    }

    /** Runs the handler of {@code event} and adds its outcome to {@code succeeded} or {@code failures}. */
    private void handle(HandlerRunner runner, MessageRecord event, List<MessageRecord> succeeded,
                        List<WorkerStore.Failure> failures) {
        long handling = System.nanoTime();
        TraceSpan span = MessageSpans.process(settings.tracing(), event, id);
        MessageHandler handler = config.handlers().get(event.eventType());
        Throwable error = runner.run(e -> {
            try (TraceSpan.Scope current = span.makeCurrent();
                 LogContext logs = LogContext.open(e.eventNo(), LogContext.aggregate(e.bizType(), e.bizId()), span)) {
                handler.handle(e);
            }
        }, event, config.handlerTimeout());
        span.end(error);
        Duration took = Duration.ofNanos(System.nanoTime() - handling);
        safely(() -> config.listener().handled(event, took, error));
        if (error == null) {
            succeeded.add(event);
        } else if (error instanceof InterruptedException) {
            failures.add(new WorkerStore.Failure(event, WorkerStore.Kind.RELEASE,
                    "released: handler interrupted while worker " + id + " stopped", settings.now(), 0));
        } else {
            failures.add(failurePolicy.failure(event, error, "", settings.now()));
        }
        // a listener, classifier or retry policy that throws is contained where it is called
    }

    /** Gives {@code events} back unhandled: FAILED, due at once, no attempt counted. */
    private void release(List<MessageRecord> events, String reason, List<WorkerStore.Failure> into) {
        Instant t = settings.now();
        for (MessageRecord r : events) {
            into.add(new WorkerStore.Failure(r, WorkerStore.Kind.RELEASE, reason, t, 0));
        }
    }

    private int recover(Instant now) {
        Instant cutoff = now.minus(config.stuckTimeout());
        List<WorkerStore.Failure> failures = new ArrayList<>();
        int[] recorded = Transactions.inTransaction(pool, "worker " + id + " recovery of stuck events", c -> {
            for (MessageRecord r : store.stuck(c, cutoff, config.batchSize())) {
                failures.add(failurePolicy.failure(r, new StuckEventException(r, config.stuckTimeout()),
                        "recovered by worker " + id + ": ", now));
            }
            int[] done = store.failed(c, failures, now);
            attempts.insert(c, attempts(failures, done), now);
            return done;
        });
        if (failures.isEmpty()) {
            return 0;
        }
        int recovered = 0;
        WindowStats.Tally counted = stats.tally();
        for (int i = 0; i < recorded.length; i++) {
            if (recorded[i] == 1) {
                recovered++;
                count(failures.get(i), counted);
                notifyRecorded(failures.get(i));
            }
        }
        counted.add();
        log.warn("Message worker {}: recovered {} event(s) stuck in PROCESSING for over {}", id, recovered,
                config.stuckTimeout());
        return recovered;
    }

    private List<MessageRecord> claim(Instant now) {
        return Transactions.claim(CLAIM_KIND, store.serialized(), settings.dialect(), pool, "worker " + id + " claim",
                c -> new ArrayList<>(store.claim(c, config.batchSize(), now)));
    }

    private List<MessageRecord> touch(List<MessageRecord> pending, Instant now) {
        return Transactions.inTransaction(pool, "worker " + id + " refreshing " + pending.size() + " claimed events",
                c -> new ArrayList<>(store.touch(c, pending, now)));
    }

    /** What one recording transaction wrote: successes still this worker's, and per failure 1 or 0. */
    private record Recorded(int succeeded, int[] failures) {
    }

    /** Records and clears the outcomes gathered so far, adding them to {@code tally}. */
    private void record(List<MessageRecord> succeeded, List<WorkerStore.Failure> failures, Tally tally) {
        if (succeeded.isEmpty() && failures.isEmpty()) {
            return;
        }
        Instant now = settings.now();
        Recorded done = Transactions.inTransaction(pool, "worker " + id + " recording succeeded=" + succeeded.size()
                + ", failed=" + failures.size(), c -> {
            int ok = store.succeeded(c, succeeded, now);
            int[] failed = store.failed(c, failures, now);
            attempts.insert(c, attempts(failures, failed), now);
            return new Recorded(ok, failed);
        });
        tally.succeeded += done.succeeded();
        tally.fenced += succeeded.size() - done.succeeded();
        WindowStats.Tally counted = stats.tally();
        for (int i = 0; i < done.succeeded(); i++) { // fenced ones (rare) are not counted; which they were is not known
            counted.succeeded(Duration.between(succeeded.get(i).createTime(), now).toMillis());
        }
        for (int i = 0; i < failures.size(); i++) {
            WorkerStore.Failure f = failures.get(i);
            if (done.failures()[i] == 0) {
                tally.fenced++;
                continue;
            }
            count(f, counted);
            switch (f.kind()) {
                case RETRY -> tally.retried++;
                case DEAD -> tally.dead++;
                case CANCEL -> tally.cancelled++;
                case RELEASE -> tally.released++;
            }
            notifyRecorded(f);
        }
        counted.add();
        if (tally.fenced > 0) {
            log.warn("Message worker {}: {} outcome(s) not recorded: the events were recovered as stuck by another worker",
                    id, tally.fenced);
        }
        succeeded.clear();
        failures.clear();
    }

    /**
     * The attempt rows of the failures recorded ({@code recorded[i] == 1}); a release (handed back unhandled) is no
     * attempt. A cancel by the event type's policy after the last retry is outcome CANCELLED.
     */
    private List<AttemptLog.Attempt> attempts(List<WorkerStore.Failure> failures, int[] recorded) {
        List<AttemptLog.Attempt> out = new ArrayList<>();
        for (int i = 0; i < failures.size(); i++) {
            WorkerStore.Failure f = failures.get(i);
            if (recorded[i] == 1 && f.kind() != WorkerStore.Kind.RELEASE) {
                MessageRecord e = f.event();
                String outcome = switch (f.kind()) {
                    case RETRY -> AttemptLog.FAILED;
                    case CANCEL -> AttemptLog.CANCELLED;
                    default -> AttemptLog.DEAD;
                };
                out.add(new AttemptLog.Attempt(AttemptLog.MESSAGE, e.id(), e.eventNo(), e.retryCount() + f.addRetries(),
                        outcome, f.reason(), id, f.kind() == WorkerStore.Kind.RETRY ? f.nextRetry() : null));
            }
        }
        return out;
    }

    /** Counts a recorded failure into the heartbeat's window: a retry left, or none (dead, or cancelled by policy). */
    private static void count(WorkerStore.Failure f, WindowStats.Tally counted) {
        switch (f.kind()) {
            case RETRY -> counted.failed();
            case DEAD, CANCEL -> counted.dead();
            case RELEASE -> { }
        }
    }

    private void notifyRecorded(WorkerStore.Failure f) {
        switch (f.kind()) {
            case RETRY -> safely(() -> config.listener().failed(f.event(), f.reason(), f.nextRetry()));
            case DEAD -> {
                MessageRecord e = f.event();
                try (LogContext logs = LogContext.open(e.eventNo(), LogContext.aggregate(e.bizType(), e.bizId()), e.traceId(), null)) {
                    log.warn("Message worker {}: event {} ({}) is DEAD: {}", id, e.eventNo(), e.eventType(), f.reason());
                }
                safely(() -> config.listener().dead(f.event(), f.reason()));
            }
            case CANCEL -> safely(() -> config.listener().cancelled(f.event(), f.reason()));
            case RELEASE -> { }
        }
    }

    /** A listener's failure, an Error too, is logged and the worker goes on. */
    private void safely(Runnable hook) {
        Failures.safely(log, "Message worker " + id, hook);
    }
}
