package dev.postbox.message;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.internal.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Handles message events ({@code biz_message_event}) with the handlers registered per
 * {@code event_type}. Each cycle, in short transactions of its own pool: recovers events stuck in
 * PROCESSING longer than the stuck timeout (a failed attempt), claims a batch of due events (PENDING, or
 * FAILED whose next_retry_time has passed), runs each handler outside any transaction with the handler
 * timeout, and records the outcomes with writes fenced by the claimed version: SUCCEEDED, FAILED with the
 * retry policy's next_retry_time, or, when retries are used up or the error is not retryable, DEAD (or
 * CANCELLED where the event type allows it). Any number of workers, threads or processes may share the
 * table. Built by {@code postbox.worker()}; {@link #start()} runs it on its own threads, {@link #runOnce()}
 * runs one cycle on the caller's. Thread-safe; {@link #close()} stops claiming, lets the handler in
 * progress finish within the shutdown timeout, records what finished and releases what did not start.
 */
public final class MessageWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MessageWorker.class);
    /** Serializes claims within this JVM where the database has no SKIP LOCKED. */
    private static final ReentrantLock SERIAL_CLAIMS = new ReentrantLock();

    private final Settings settings;
    private final MessageWorkerBuilder config;
    private final WorkerStore store;
    private final FailurePolicy failurePolicy;
    private final DataSource pool;
    private final HikariDataSource ownedPool;
    private final Object signal = new Object();
    private final ReentrantLock callerLock = new ReentrantLock();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;
    private volatile boolean stopping;
    private volatile Throwable died;
    private boolean woken;
    private HandlerRunner callerRunner;

    MessageWorker(Settings settings, MessageWorkerBuilder config) {
        this.settings = settings;
        this.config = config;
        this.store = new WorkerStore(settings.dialect(), settings.tables().message(), config.handlers.keySet());
        this.failurePolicy = new FailurePolicy(config);
        if (config.dataSource != null) {
            this.pool = config.dataSource;
            this.ownedPool = null;
        } else {
            this.ownedPool = ownPool(settings.dataSource(), config);
            this.pool = ownedPool;
        }
    }

    private static HikariDataSource ownPool(DataSource app, MessageWorkerBuilder config) {
        HikariConfig cfg = new HikariConfig();
        if (app instanceof HikariDataSource hikari) {
            hikari.copyStateTo(cfg); // same database and credentials, never the same connections
        } else {
            cfg.setDataSource(app);
        }
        cfg.setPoolName("postbox-worker-" + config.instanceId);
        cfg.setMaximumPoolSize(config.threads + 1);
        cfg.setMinimumIdle(1);
        cfg.setAutoCommit(false);
        cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        cfg.setRegisterMbeans(false);
        return new HikariDataSource(cfg);
    }

    /** This worker's name. */
    public String instanceId() {
        return config.instanceId;
    }

    /**
     * Whether the worker is working: started, not closed, and every one of its threads alive. False once
     * a thread died of something it could not contain (logged at ERROR), which the Spring health reports.
     */
    public boolean isRunning() {
        List<Thread> all;
        synchronized (this) {
            all = List.copyOf(threads);
        }
        return running && !stopping && died == null && !all.isEmpty() && all.stream().allMatch(Thread::isAlive);
    }

    /** Starts the worker's threads; returns this worker. Calling it twice is an error. */
    public synchronized MessageWorker start() {
        if (!threads.isEmpty()) {
            throw new IllegalStateException("worker " + config.instanceId + " was already started");
        }
        running = true;
        for (int i = 0; i < config.threads; i++) {
            Thread t = new Thread(this::run, "postbox-worker-" + config.instanceId + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        log.info("Message worker {} started: {} thread(s), batch {}, handler timeout {}, stuck timeout {}, types {}",
                config.instanceId, config.threads, config.batchSize, config.handlerTimeout, config.stuckTimeout,
                config.handlers.keySet());
        return this;
    }

    /** Ends the current idle wait at once (e.g. after committing new message events). */
    public void wakeUp() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void run() {
        try {
            loop();
        } catch (Throwable e) { // last resort: the loop contains everything it can
            died = e;
            log.error("Message worker {}: thread {} died: {}", config.instanceId, Thread.currentThread().getName(), e, e);
        }
    }

    private void loop() {
        HandlerRunner runner = new HandlerRunner(Thread.currentThread().getName() + "-handler");
        long idleMs = config.pollMin.toMillis();
        try {
            while (running) {
                try {
                    WorkerCycle cycle = cycle(runner);
                    if (cycle.claimed() >= config.batchSize) {
                        idleMs = config.pollMin.toMillis();
                        continue;
                    }
                    if (cycle.claimed() > 0) {
                        idleMs = config.pollMin.toMillis();
                    }
                } catch (Throwable e) { // an Error as well: the next cycle may well succeed
                    log.warn("Message worker {}: cycle failed, backing off: {}", config.instanceId, e.toString());
                    idleMs = config.pollMax.toMillis();
                }
                synchronized (signal) {
                    if (!woken && running) {
                        try {
                            signal.wait(Math.max(1, idleMs));
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    if (woken) {
                        woken = false;
                        idleMs = config.pollMin.toMillis();
                    } else {
                        idleMs = Math.min(idleMs * 2, config.pollMax.toMillis());
                    }
                }
            }
        } finally {
            runner.close();
        }
    }

    /** Runs one cycle (recover, claim, handle, record) on the calling thread. */
    public WorkerCycle runOnce() {
        callerLock.lock();
        try {
            if (callerRunner == null) {
                callerRunner = new HandlerRunner("postbox-worker-" + config.instanceId + "-caller-handler");
            }
            return cycle(callerRunner);
        } finally {
            callerLock.unlock();
        }
    }

    private WorkerCycle cycle(HandlerRunner runner) {
        long started = System.nanoTime();
        WorkerCycle cycle = cycleOnce(runner);
        if (cycle != WorkerCycle.EMPTY) {
            safely(() -> config.listener.cycle(config.instanceId, cycle, Duration.ofNanos(System.nanoTime() - started)));
        }
        return cycle;
    }

    private WorkerCycle cycleOnce(HandlerRunner runner) {
        Instant now = settings.now();
        int recovered = recover(now);
        List<MessageRecord> pending = stopping ? List.of() : claim(now);
        if (pending.isEmpty()) {
            return recovered == 0 ? WorkerCycle.EMPTY : new WorkerCycle(0, 0, 0, 0, 0, 0, 0, recovered);
        }
        Tally tally = new Tally(pending.size(), recovered);
        List<MessageRecord> succeeded = new ArrayList<>();
        List<WorkerStore.Failure> failures = new ArrayList<>();
        Duration touchEvery = config.stuckTimeout.dividedBy(4);
        Instant lastTouch = now;
        try {
            while (!pending.isEmpty()) {
                if (stopping) {
                    Instant t = settings.now();
                    for (MessageRecord r : pending) {
                        failures.add(new WorkerStore.Failure(r, WorkerStore.Kind.RELEASE,
                                "released unhandled: worker " + config.instanceId + " stopped", t, 0));
                    }
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
                MessageRecord event = pending.remove(0);
                long handling = System.nanoTime();
                Throwable error = runner.run(config.handlers.get(event.eventType()), event, config.handlerTimeout);
                Duration took = Duration.ofNanos(System.nanoTime() - handling);
                safely(() -> config.listener.handled(event, took, error));
                if (error == null) {
                    succeeded.add(event);
                } else if (error instanceof InterruptedException) {
                    failures.add(new WorkerStore.Failure(event, WorkerStore.Kind.RELEASE,
                            "released: handler interrupted while worker " + config.instanceId + " stopped", settings.now(), 0));
                } else {
                    failures.add(failurePolicy.failure(event, error, "", settings.now()));
                }
                // a listener, classifier or retry policy that throws is contained where it is called
            }
        } finally {
            if (!pending.isEmpty()) { // a failure while touching: give the rest back rather than leave it stuck
                Instant t = settings.now();
                for (MessageRecord r : pending) {
                    failures.add(new WorkerStore.Failure(r, WorkerStore.Kind.RELEASE, "released unhandled after an error", t, 0));
                }
            }
            record(succeeded, failures, tally);
        }
        return tally.cycle();
    }

    private int recover(Instant now) {
        Instant cutoff = now.minus(config.stuckTimeout);
        try (Connection c = pool.getConnection()) {
            try {
                List<MessageRecord> stuck = store.stuck(c, cutoff, config.batchSize);
                if (stuck.isEmpty()) {
                    c.commit();
                    return 0;
                }
                List<WorkerStore.Failure> failures = new ArrayList<>(stuck.size());
                for (MessageRecord r : stuck) {
                    failures.add(failurePolicy.failure(r, new StuckEventException(r, config.stuckTimeout),
                            "recovered by worker " + config.instanceId + ": ", now));
                }
                int[] recorded = store.failed(c, failures, now);
                c.commit();
                int recovered = 0;
                for (int i = 0; i < recorded.length; i++) {
                    if (recorded[i] == 1) {
                        recovered++;
                        notifyRecorded(failures.get(i));
                    }
                }
                log.warn("Message worker {}: recovered {} event(s) stuck in PROCESSING for over {}", config.instanceId,
                        recovered, config.stuckTimeout);
                return recovered;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("worker " + config.instanceId + " recovery of stuck events", e);
        }
    }

    private List<MessageRecord> claim(Instant now) {
        if (!store.serialized()) {
            return claimTx(now);
        }
        SERIAL_CLAIMS.lock();
        try {
            return claimTx(now);
        } finally {
            SERIAL_CLAIMS.unlock();
        }
    }

    private List<MessageRecord> claimTx(Instant now) {
        try (Connection c = pool.getConnection()) {
            try {
                List<MessageRecord> claimed = store.claim(c, config.batchSize, now);
                c.commit();
                return new ArrayList<>(claimed);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("worker " + config.instanceId + " claim", e);
        }
    }

    private List<MessageRecord> touch(List<MessageRecord> pending, Instant now) {
        try (Connection c = pool.getConnection()) {
            try {
                List<MessageRecord> kept = store.touch(c, pending, now);
                c.commit();
                return new ArrayList<>(kept);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("worker " + config.instanceId + " refreshing " + pending.size() + " claimed events", e);
        }
    }

    /** Records and clears the outcomes gathered so far, adding them to {@code tally}. */
    private void record(List<MessageRecord> succeeded, List<WorkerStore.Failure> failures, Tally tally) {
        if (succeeded.isEmpty() && failures.isEmpty()) {
            return;
        }
        Instant now = settings.now();
        int ok;
        int[] recorded;
        try (Connection c = pool.getConnection()) {
            try {
                ok = store.succeeded(c, succeeded, now);
                recorded = store.failed(c, failures, now);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("worker " + config.instanceId + " recording succeeded=" + succeeded.size()
                    + ", failed=" + failures.size(), e);
        }
        tally.succeeded += ok;
        tally.fenced += succeeded.size() - ok;
        for (int i = 0; i < failures.size(); i++) {
            WorkerStore.Failure f = failures.get(i);
            if (recorded[i] == 0) {
                tally.fenced++;
                continue;
            }
            switch (f.kind()) {
                case RETRY -> tally.retried++;
                case DEAD -> tally.dead++;
                case CANCEL -> tally.cancelled++;
                case RELEASE -> tally.released++;
            }
            notifyRecorded(f);
        }
        if (tally.fenced > 0) {
            log.warn("Message worker {}: {} outcome(s) not recorded: the events were recovered as stuck by another worker",
                    config.instanceId, tally.fenced);
        }
        succeeded.clear();
        failures.clear();
    }

    private void notifyRecorded(WorkerStore.Failure f) {
        switch (f.kind()) {
            case RETRY -> safely(() -> config.listener.failed(f.event(), f.reason(), f.nextRetry()));
            case DEAD -> {
                log.warn("Message worker {}: event {} ({}) is DEAD: {}", config.instanceId, f.event().eventNo(),
                        f.event().eventType(), f.reason());
                safely(() -> config.listener.dead(f.event(), f.reason()));
            }
            case CANCEL -> safely(() -> config.listener.cancelled(f.event(), f.reason()));
            case RELEASE -> { }
        }
    }

    private void safely(Runnable hook) {
        try {
            hook.run();
        } catch (Throwable e) { // an Error of a listener is logged like any exception: the worker goes on
            log.warn("Message worker {}: listener failed: {}", config.instanceId, e.toString());
        }
    }

    /**
     * Stops claiming, lets the handler in progress finish (interrupting it after the shutdown timeout),
     * records what finished, releases what was claimed but not started (FAILED, due at once, no attempt
     * counted) and closes the worker's own pool. Returns only when the worker's threads are done: after
     * at most the shutdown timeout plus the handler timeout (a WARN says so if a thread is still busy
     * then), so no handler starts and nothing is recorded after close() returned.
     */
    @Override
    public void close() {
        List<Thread> toJoin;
        synchronized (this) {
            stopping = true;
            running = false;
            toJoin = List.copyOf(threads);
        }
        wakeUp();
        long deadline = System.nanoTime() + config.shutdownTimeout.toNanos();
        try {
            for (Thread t : toJoin) {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
            long bound = System.nanoTime() + config.handlerTimeout.toNanos() + 1_000_000_000L;
            for (Thread t : toJoin) {
                if (t.isAlive()) {
                    t.interrupt();
                }
            }
            for (Thread t : toJoin) {
                t.join(Math.max(1, (bound - System.nanoTime()) / 1_000_000));
                if (t.isAlive()) {
                    log.warn("Message worker {}: thread {} still busy after the shutdown timeout {} plus the handler"
                            + " timeout {}; not waiting longer", config.instanceId, t.getName(), config.shutdownTimeout,
                            config.handlerTimeout);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        callerLock.lock();
        try {
            if (callerRunner != null) {
                callerRunner.close();
            }
        } finally {
            callerLock.unlock();
        }
        if (ownedPool != null) {
            ownedPool.close();
        }
        log.info("Message worker {} stopped", config.instanceId);
    }
}
