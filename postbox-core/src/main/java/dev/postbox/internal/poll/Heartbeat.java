package dev.postbox.internal.poll;

import dev.postbox.internal.Check;
import dev.postbox.internal.Hosts;
import dev.postbox.internal.WindowStats;
import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;
import org.slf4j.Logger;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The heartbeat of a relay or message worker: its row in the instance table (started, last seen, stopped on a
 * clean close) and, per heartbeat, one stats row for the window just ended ({@link WindowStats}; none for an
 * empty window), so that the operations console sees who runs and what they did without reading the event
 * tables. Times are the database's clock (read in each heartbeat's transaction, as {@link JobLease} does), so
 * instances whose clocks disagree still agree on who was seen last. Each heartbeat also deletes, at most once
 * a minute and a bounded number of rows, stats rows older than {@link #STATS_KEPT} and instance rows not seen
 * for {@link #INSTANCES_KEPT}.
 * <p>
 * It runs on a daemon thread of its own: not the job's poll loop (a heartbeat must not delay a claim), not a
 * lease keeper's timer (a heartbeat waiting for a slow database must not delay a lease renewal). A heartbeat
 * that fails is logged and tried again at the next one, its window's counts carried over; it never stops the
 * job. Thread-safe.
 */
public final class Heartbeat implements AutoCloseable {

    /** How long stats rows are kept: the console charts the last hour; a day more for a look back. */
    public static final Duration STATS_KEPT = Duration.ofDays(2);
    /** How long the row of an instance that is no longer seen is kept. */
    public static final Duration INSTANCES_KEPT = Duration.ofDays(7);
    /** Shortest heartbeat interval the builders accept. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    /** Longest heartbeat interval the builders accept: well within the console's 60 s for a live instance. */
    public static final Duration MAX_INTERVAL = Duration.ofMinutes(1);
    private static final long CLEANUP_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    private static final long CLOSE_WAIT_MS = 5_000;

    private final DataSource pool;
    private final HeartbeatSql sql;
    private final HeartbeatSql.Identity id;
    private final Duration interval;
    private final WindowStats stats;
    private final Logger log;
    private final String owner;
    private final long createdNanos = System.nanoTime();
    private ScheduledExecutorService timer;
    /** Guarded by this: the database time of the first heartbeat and of the end of the last window written. */
    private Instant startedAt;
    private Instant windowStart;
    private long windowStartNanos = createdNanos;
    private long lastCleanup;
    private boolean cleanedOnce;
    private int failuresInRow;
    private boolean stopped;

    /**
     * @param role     {@code relay} or {@code worker}
     * @param detail   what it serves (publisher, channels, handlers); clipped to the column
     * @param interval time between heartbeats
     * @param owner    how logs name the job, e.g. {@code "Relay r1"}
     */
    public Heartbeat(Dialect dialect, TableNames tables, DataSource pool, String instance, String role, String detail,
                     Duration interval, WindowStats stats, Logger log, String owner) {
        this.pool = pool;
        this.sql = new HeartbeatSql(dialect, tables);
        this.id = new HeartbeatSql.Identity(instance, role, Check.clip(Hosts.name(), 255), Check.clip(detail, 1000));
        this.interval = interval;
        this.stats = stats;
        this.log = log;
        this.owner = owner;
    }

    /** Starts the heartbeats on their daemon thread, the first at once. */
    public synchronized void start() {
        if (timer != null || stopped) {
            throw new IllegalStateException(owner + ": heartbeat already started or stopped");
        }
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("postbox-heartbeat-" + id.instance()));
        timer.scheduleWithFixedDelay(this::beatSafely, 0, Math.max(1, interval.toMillis()), TimeUnit.MILLISECONDS);
    }

    /** One heartbeat now, on the calling thread (tests; it also writes the row of a job not started); false if it failed. */
    public boolean beat() {
        return beat(false);
    }

    private void beatSafely() {
        try {
            beat(false);
        } catch (Throwable e) { // the timer must survive anything, or the heartbeats would stop for good
            log.warn("{}: heartbeat failed: {}", owner, Failures.describe(e));
        }
    }

    private synchronized boolean beat(boolean last) {
        if (stopped || (last && timer == null && startedAt == null)) {
            return false; // closed, or never started (a job run only by runOnce() has no heartbeat)
        }
        WindowStats.Snapshot window = stats.drain();
        long nanos = System.nanoTime();
        boolean first = startedAt == null;
        try {
            Instant[] times = Transactions.inTransaction(pool, owner + " heartbeat", c -> {
                Instant now = sql.databaseNow(c);
                Instant start = windowStart != null ? windowStart : now.minusNanos(Math.max(0, nanos - windowStartNanos));
                Instant began = first ? start : startedAt;
                if (last) {
                    sql.stopped(c, id, began, now);
                } else if (first) {
                    sql.started(c, id, began, now);
                } else {
                    sql.seen(c, id, began, now);
                }
                if (!window.empty()) {
                    sql.window(c, id.instance(), start, now, window);
                }
                return new Instant[] {began, now};
            });
            startedAt = times[0];
            windowStart = times[1];
            windowStartNanos = nanos;
            if (failuresInRow > 0) {
                log.info("{}: heartbeat written again after {} failed", owner, failuresInRow);
            }
            failuresInRow = 0;
            if (!last) {
                cleanUp(times[1]);
            }
            return true;
        } catch (RuntimeException e) {
            stats.restore(window);
            if (failuresInRow++ == 0 || last) {
                log.warn("{}: heartbeat failed (tried again every {}): {}", owner, interval, Failures.describe(e));
            } else {
                log.debug("{}: heartbeat failed again: {}", owner, Failures.describe(e));
            }
            return false;
        }
    }

    /** At most once a minute: old stats and instance rows go, a bounded number per table. */
    private void cleanUp(Instant now) {
        long nanos = System.nanoTime();
        if (cleanedOnce && nanos - lastCleanup < CLEANUP_EVERY_NANOS) {
            return;
        }
        cleanedOnce = true;
        lastCleanup = nanos;
        try {
            int[] deleted = Transactions.inTransaction(pool, owner + " heartbeat cleanup", c -> new int[] {
                    sql.deleteStatsBefore(c, now.minus(STATS_KEPT)),
                    sql.deleteInstancesBefore(c, now.minus(INSTANCES_KEPT))});
            if (deleted[0] + deleted[1] > 0) {
                log.debug("{}: deleted {} old stats rows and {} instances not seen for {}", owner, deleted[0], deleted[1],
                        INSTANCES_KEPT);
            }
        } catch (RuntimeException e) {
            log.debug("{}: heartbeat cleanup failed (tried again later): {}", owner, Failures.describe(e));
        }
    }

    /**
     * Stops the heartbeats (waiting a few seconds for one in progress) and writes the last one: the window since
     * the previous heartbeat and the stopped time. Best effort: a failure is logged, never thrown. Call it before
     * the pool closes.
     */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
        }
        if (t != null) {
            t.shutdown();
            try {
                t.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            t.shutdownNow();
        }
        try {
            beat(true);
        } finally {
            synchronized (this) {
                stopped = true;
            }
        }
    }
}
