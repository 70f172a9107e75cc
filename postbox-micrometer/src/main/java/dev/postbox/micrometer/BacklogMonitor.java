package dev.postbox.micrometer;

import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.query.Monitoring;
import dev.postbox.query.Queries;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads the outbox and message-event {@link Backlogs} every refresh interval on one daemon thread of its own, so neither a
 * metrics scrape nor the relay ever waits for the query.
 * A failed read is logged (at most once a minute, with the number of failures in between) and keeps the last
 * values. The same loop also reads the catalog's size of each Postbox table ({@link Monitoring#tableSize}, never
 * the table itself) for the {@code postbox.table.*} gauges, the relays' and workers' heartbeats
 * ({@link Monitoring#instances}, alive within {@link OperationsConfig#DEFAULT_ALIVE_WITHIN}) for
 * {@code postbox.relay.instances} and the Actuator endpoint, and each known compensation job's retryable
 * compensations ({@link Monitoring#retryableCompensations}) for {@code postbox.compensation.pending}. Every read is
 * of the whole table, so every instance reading one database sees the same values (see docs/metrics.md). {@link #start()} and
 * {@link #stop()} (or {@link #close()}) are the owner's: the starter ties them to the application context. Thread-safe.
 */
public class BacklogMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BacklogMonitor.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long STOP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** The prefix of the reading thread's name. */
    public static final String THREAD_NAME = "postbox-backlog-";

    private final Queries queries;
    private final Duration interval;
    @SuppressWarnings("unused") // the constructors keep their signatures; sizes no longer need it
    private final Retention retention;
    private final List<CompensationJob> jobs;
    private volatile Map<RetentionTable, Monitoring.TableSize> sizes = Map.of();
    private volatile List<Monitoring.Instance> instances;
    private volatile Map<String, Long> pending = Map.of();
    // only touched by the reading thread
    private long sizeFailuresInRow;
    private long lastSizeLogNanos;
    // what the newest reads found, by the time each read started; guarded by reads (not by this: stop() holds that
    // while it waits for the reading thread)
    private final Object reads = new Object();
    private Backlogs latest;
    private long latestStarted;
    private boolean failedSince;
    private long failedStarted;
    // only touched by the reading thread
    private long failuresInRow;
    private long lastLogNanos;
    private ScheduledExecutorService executor;
    private volatile Thread thread;

    /**
     * @param queries  where the backlogs are read
     * @param interval how often; positive
     */
    public BacklogMonitor(Queries queries, Duration interval) {
        this(queries, interval, null);
    }

    /**
     * @param queries   where the backlogs are read
     * @param interval  how often; positive
     * @param retention kept for the callers that pass it: the table sizes are read with or without retention
     */
    public BacklogMonitor(Queries queries, Duration interval, Retention retention) {
        this(queries, interval, retention, List.of());
    }

    /**
     * @param queries   where the backlogs are read
     * @param interval  how often; positive
     * @param retention kept for the callers that pass it; the table sizes are read either way
     * @param jobs      compensation jobs whose retryable compensations are read ({@link #pending()}); may be empty
     */
    public BacklogMonitor(Queries queries, Duration interval, Retention retention, Collection<CompensationJob> jobs) {
        this.retention = retention;
        this.jobs = List.copyOf(jobs);
        this.queries = Objects.requireNonNull(queries, "queries");
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new ValidationException("interval", "must be positive, was " + interval);
        }
        this.interval = interval;
    }

    /** The last backlogs read successfully, or null before the first read. */
    public Backlogs latest() {
        synchronized (reads) {
            return latest;
        }
    }

    /**
     * The last backlogs if that read started within one refresh interval and no read started since has failed.
     * Reads are ordered by when they started, so a slow read finishing late never replaces what a newer one found.
     */
    public Optional<Backlogs> fresh() {
        return fresh(interval);
    }

    /** {@link #fresh()}, but only a read that started within {@code maxAge} (and within one refresh interval). */
    public Optional<Backlogs> fresh(java.time.Duration maxAge) {
        long limit = Math.min(maxAge.toNanos(), interval.toNanos());
        synchronized (reads) {
            if (latest == null || failedSince || System.nanoTime() - latestStarted > limit) {
                return Optional.empty();
            }
            return Optional.of(latest);
        }
    }

    /**
     * Reads the backlogs now, on the caller's thread (the health check, when there is no fresh read), and keeps the
     * outcome as the monitor's own reads are kept; throws what the read threw.
     */
    public Backlogs readNow() {
        long started = System.nanoTime();
        try {
            Backlogs b = Backlogs.read(queries);
            succeeded(started, b);
            return b;
        } catch (RuntimeException e) {
            failed(started);
            throw e;
        }
    }

    private void succeeded(long started, Backlogs b) {
        synchronized (reads) {
            if (latest == null || started - latestStarted > 0) {
                latest = b;
                latestStarted = started;
                if (failedSince && started - failedStarted > 0) {
                    failedSince = false;
                }
            }
        }
    }

    private void failed(long started) {
        synchronized (reads) {
            if (latest == null || started - latestStarted > 0) {
                if (!failedSince || started - failedStarted > 0) {
                    failedStarted = started;
                }
                failedSince = true;
            }
        }
    }

    /** The refresh interval. */
    public Duration interval() {
        return interval;
    }

    /** The last catalog size read of {@code table}, or null before one. */
    public Monitoring.TableSize tableSize(RetentionTable table) {
        return sizes.get(table);
    }

    /** The relays and workers of the last heartbeat read (seen within a day), or null before one. */
    public List<Monitoring.Instance> instances() {
        return instances;
    }

    /** Relays whose heartbeat the last read found alive, or -1 before a read. */
    public int relaysAlive() {
        List<Monitoring.Instance> i = instances;
        return i == null ? -1 : (int) i.stream().filter(x -> x.alive() && "relay".equals(x.role())).count();
    }

    /** Retryable compensations per job tag ({@link #jobTag}) as last read; a job not read yet is absent. */
    public Map<String, Long> pending() {
        return pending;
    }

    /** The compensation jobs whose pending compensations this monitor reads. */
    public List<CompensationJob> jobs() {
        return jobs;
    }

    /** A job's {@code job} tag: {@code bizType:actionType}. */
    public static String jobTag(CompensationJob job) {
        return job.bizType() + ":" + job.actionType();
    }

    /** Reads every table's catalog size, the heartbeats and the jobs' pending counts now, on the caller's thread; throws what failed. */
    public void readSizes() {
        Monitoring m = queries.monitoring();
        Map<RetentionTable, Monitoring.TableSize> read = new EnumMap<>(RetentionTable.class);
        for (RetentionTable t : RetentionTable.values()) {
            read.put(t, m.tableSize(t));
        }
        sizes = Map.copyOf(read);
        instances = List.copyOf(m.instances(OperationsConfig.DEFAULT_ALIVE_WITHIN));
        Map<String, Long> p = new LinkedHashMap<>();
        for (CompensationJob j : jobs) {
            p.put(jobTag(j), m.retryableCompensations(j.bizType(), j.actionType(), j.maxAttempts()));
        }
        pending = Map.copyOf(p);
    }

    private void refreshSizes() {
        try {
            readSizes();
            sizeFailuresInRow = 0;
        } catch (RuntimeException e) {
            sizeFailuresInRow++;
            long now = System.nanoTime();
            if (sizeFailuresInRow == 1 || now - lastSizeLogNanos >= LOG_EVERY_NANOS) {
                lastSizeLogNanos = now;
                log.warn("Postbox table sizes, heartbeats or pending compensations could not be read ({} failure(s) in"
                        + " a row); the gauges keep their last values: {}", sizeFailuresInRow, e.toString());
            }
        }
    }

    /** One read of the backlogs, the table sizes, the heartbeats and the pending compensations, on the caller's thread; never throws. */
    public void refresh() {
        refreshBacklogs();
        refreshSizes();
    }

    private void refreshBacklogs() {
        try {
            readNow();
            if (failuresInRow > 0) {
                log.info("Postbox backlog readable again after {} failed read(s)", failuresInRow);
                failuresInRow = 0;
            }
        } catch (RuntimeException e) {
            failuresInRow++;
            long now = System.nanoTime();
            if (failuresInRow == 1 || now - lastLogNanos >= LOG_EVERY_NANOS) {
                lastLogNanos = now;
                log.warn("Postbox backlog could not be read ({} failure(s) in a row); the metrics keep their last"
                        + " values: {}", failuresInRow, e.toString());
            }
        }
    }

    /** Starts the reads (the first at once); a second call does nothing. */
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, THREAD_NAME + THREADS.incrementAndGet());
            t.setDaemon(true);
            thread = t;
            return t;
        });
        executor.scheduleWithFixedDelay(this::refresh, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the reads and returns once the reading thread has ended (or after 10 s, with a warning): an executor
     * reports itself terminated while its last thread is still on its way out, so the thread itself is joined.
     */
    public synchronized void stop() {
        ScheduledExecutorService e = executor;
        executor = null;
        if (e == null) {
            return;
        }
        e.shutdownNow();
        long deadline = System.nanoTime() + STOP_WAIT_NANOS;
        try {
            boolean stopped = e.awaitTermination(STOP_WAIT_NANOS, TimeUnit.NANOSECONDS) && joined(thread, deadline);
            if (!stopped) {
                log.warn("Postbox backlog reader did not stop within 10 s");
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean joined(Thread t, long deadline) throws InterruptedException {
        if (t == null) {
            return true;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return !t.isAlive();
    }

    /** Whether the reads are running. */
    public synchronized boolean isRunning() {
        return executor != null;
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }
}
