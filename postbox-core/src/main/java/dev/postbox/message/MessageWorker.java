package dev.postbox.message;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.Settings;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Heartbeat;
import dev.postbox.internal.poll.PollLoop;
import dev.postbox.internal.poll.Pools;
import dev.postbox.internal.poll.ReadCommitted;
import dev.postbox.relay.LatencyBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
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
 * <p>
 * Each failed attempt it records also leaves a row in the attempt history ({@code biz_event_attempt}, in the same
 * transaction); a heartbeat keeps the worker's row in {@code biz_relay_instance} (role {@code worker}) and its
 * counts per window in {@code biz_relay_stats}. A success writes nothing more.
 */
public final class MessageWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MessageWorker.class);
    /** Beyond the handler timeout, how long close() waits for an interrupted thread to record and end. */
    private static final Duration RECORD_GRACE = Duration.ofSeconds(1);

    private final WorkerConfig config;
    private final HikariDataSource ownedPool;
    private final PollLoop loop;
    private final WorkerCycles cycles;
    private final Heartbeat heartbeat;
    private final ReentrantLock callerLock = new ReentrantLock();
    private HandlerRunner callerRunner;

    MessageWorker(Settings settings, WorkerConfig config) {
        this.config = config;
        String name = "postbox-worker-" + config.instanceId();
        this.ownedPool = config.dataSource() != null ? null
                : Pools.own(settings.dataSource(), name, config.threads() + 1);
        DataSource pool = ownedPool != null ? ownedPool : ReadCommitted.of(settings.dialect(), config.dataSource());
        // threads are named <name>-<n>, a single one too (the loop appends -<n> only for several)
        this.loop = new PollLoop("Message worker " + config.instanceId(), config.threads() == 1 ? name + "-0" : name,
                config.threads(), config.pollMin(), config.pollMax(), log);
        WindowStats stats = new WindowStats(LatencyBuckets.upperBounds());
        this.cycles = new WorkerCycles(settings, config, pool, loop::closing, stats);
        String detail = "handlers " + String.join(", ", config.handlers().keySet()) + "; " + config.threads()
                + " thread(s), batch " + config.batchSize();
        this.heartbeat = new Heartbeat(settings.dialect(), settings.tables(), pool, config.instanceId(), "worker", detail,
                config.heartbeatInterval(), stats, log, "Message worker " + config.instanceId());
    }

    /** The settings this worker was built with (tests). */
    WorkerConfig config() {
        return config;
    }

    /** This worker's name. */
    public String instanceId() {
        return config.instanceId();
    }

    /**
     * Whether the worker is working: started, not closed, and every one of its threads alive. False once
     * a thread died of something it could not contain (logged at ERROR), which the Spring health reports.
     */
    public boolean isRunning() {
        return loop.isRunning();
    }

    /** Starts the worker's threads; returns this worker. Calling it twice is an error. */
    public MessageWorker start() {
        loop.start(i -> new Body());
        heartbeat.start();
        log.info("Message worker {} started: {} thread(s), batch {}, handler timeout {}, stuck timeout {}, types {}",
                config.instanceId(), config.threads(), config.batchSize(), config.handlerTimeout(), config.stuckTimeout(),
                config.handlers().keySet());
        return this;
    }

    /** Ends the current idle wait at once (e.g. after committing new message events). */
    public void wakeUp() {
        loop.wakeUp();
    }

    /**
     * One thread of the worker: its own handler runner, cycles answering how much they claimed (a full
     * batch: go on at once; some: the shortest pause; none: back off).
     */
    private final class Body implements PollLoop.Body {
        private HandlerRunner runner;

        @Override
        public PollLoop.Outcome turn() {
            if (runner == null) {
                runner = new HandlerRunner(Thread.currentThread().getName() + "-handler");
            }
            int claimed = cycles.run(runner).claimed();
            if (claimed >= config.batchSize()) {
                return PollLoop.Outcome.MORE;
            }
            return claimed > 0 ? PollLoop.Outcome.SOME : PollLoop.Outcome.NONE;
        }

        @Override
        public void exit(Throwable died) {
            if (runner != null) {
                runner.close();
            }
        }
    }

    /** Runs one cycle (recover, claim, handle, record) on the calling thread. */
    public WorkerCycle runOnce() {
        callerLock.lock();
        try {
            if (callerRunner == null) {
                callerRunner = new HandlerRunner("postbox-worker-" + config.instanceId() + "-caller-handler");
            }
            return cycles.run(callerRunner);
        } finally {
            callerLock.unlock();
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
        List<Thread> busy = loop.close(config.shutdownTimeout(), config.handlerTimeout().plus(RECORD_GRACE));
        for (Thread t : busy) {
            log.warn("Message worker {}: thread {} still busy after the shutdown timeout {} plus the handler"
                    + " timeout {}; not waiting longer", config.instanceId(), t.getName(), config.shutdownTimeout(),
                    config.handlerTimeout());
        }
        callerLock.lock();
        try {
            if (callerRunner != null) {
                callerRunner.close();
            }
        } finally {
            callerLock.unlock();
        }
        heartbeat.close(); // the last window and the stopped time, before the pool closes
        if (ownedPool != null) {
            ownedPool.close();
        }
        log.info("Message worker {} stopped", config.instanceId());
    }
}
