package dev.postbox.micrometer;

import dev.postbox.common.ValidationException;
import dev.postbox.query.Queries;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumMap;
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
 * values. With retention on, the same loop also reads the catalog's size of each Postbox table
 * ({@link Retention#size}, never the table itself) for the {@code postbox.table.*} gauges. {@link #start()} and
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
    private final Retention retention;
    private volatile Map<RetentionTable, Retention.TableSize> sizes = Map.of();
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
     * @param retention whose {@link Retention#size table sizes} are read too, or null (retention off)
     */
    public BacklogMonitor(Queries queries, Duration interval, Retention retention) {
        this.retention = retention;
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

    /** The last catalog size read of {@code table}, or null before one (or with retention off). */
    public Retention.TableSize tableSize(RetentionTable table) {
        return sizes.get(table);
    }

    /** Reads every table's catalog size now, on the caller's thread; keeps what was read, throws what failed. */
    public void readSizes() {
        if (retention == null) {
            return;
        }
        Map<RetentionTable, Retention.TableSize> read = new EnumMap<>(RetentionTable.class);
        for (RetentionTable t : RetentionTable.values()) {
            read.put(t, retention.size(t));
        }
        sizes = Map.copyOf(read);
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
                log.warn("Postbox table sizes could not be read ({} failure(s) in a row); the gauges keep their last"
                        + " values: {}", sizeFailuresInRow, e.toString());
            }
        }
    }

    /** One read of the backlogs and (with retention) the table sizes, on the caller's thread; never throws. */
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
