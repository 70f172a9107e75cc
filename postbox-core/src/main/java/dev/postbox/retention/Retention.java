package dev.postbox.retention;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.CatalogSize;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.JobLease;
import dev.postbox.internal.poll.PollLoop;
import dev.postbox.internal.poll.Pools;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.jdbc.Dialect;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps Postbox's tables small: removes finished rows older than the {@link RetentionPolicy} says, by
 * deleting them or moving them to the {@code *_archive} twins, in bounded batches of short transactions
 * on its own two-connection pool, with a lock timeout (it gives way to writers and relays instead of
 * queueing them) and a statement timeout, within a per-run budget of rows and time. Unfinished rows are
 * never touched; an outbox DEAD row still holding back a later event of its aggregate is kept. Each table
 * is walked by primary key ({@link Sweep}); a run that spent its budget leaves a cursor the next run of this
 * instance resumes from. {@link #plan()} reports what a run would remove without removing anything.
 * Thread-safe: runs and plans of one instance are serialized.
 * <pre>{@code
 * try (Retention retention = postbox.retention(policy).batchSize(1000).build()) {
 *     RetentionReport report = retention.runOnce();
 * }
 * }</pre>
 */
public final class Retention implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Retention.class);

    private final Settings settings;
    private final RetentionPolicy policy;
    private final Config config;
    private final List<Sweep> sweeps = new ArrayList<>();
    private final Map<RetentionTable, Long> cursors = new EnumMap<>(RetentionTable.class);
    private final HikariDataSource pool;
    private final JobLease lease;
    private final PollLoop loop;
    private final PartitionSweep partitions;
    private volatile Status status = new Status(null, null, 0, Map.of(), null, null, null);

    /** Settings as {@link Builder#build()} validated them. */
    record Config(int batchSize, long maxRowsPerRun, Duration maxRunTime, Duration lockTimeout,
                  Duration statementTimeout, Duration interval, String instanceId, Double dutyCycle,
                  Duration partitionsAhead) {

        /** The duty cycle of {@code strategy}'s tables: the one set, else that strategy's default. */
        double dutyCycle(RetentionPolicy.Strategy strategy) {
            if (dutyCycle != null) {
                return dutyCycle;
            }
            return strategy == RetentionPolicy.Strategy.ARCHIVE ? Builder.DEFAULT_ARCHIVE_DUTY_CYCLE
                    : Builder.DEFAULT_DUTY_CYCLE;
        }

        /**
         * How long the retention lease holds: two intervals (the runner keeps it from one scheduled run to
         * the next, so one instance stays the runner while it lives), and at least the longest a window's
         * transaction can take between two renewals (three statements and a lock wait), at most an hour
         * (the lease's limit). It is the time another instance waits to take over from one that died.
         */
        Duration leaseTtl() {
            Duration ttl = interval.multipliedBy(2);
            Duration window = statementTimeout.multipliedBy(3).plus(lockTimeout);
            if (ttl.compareTo(window) < 0) {
                ttl = window;
            }
            return ttl.compareTo(JobLease.MAX_TTL) > 0 ? JobLease.MAX_TTL : ttl;
        }
    }

    /** The lease's name in {@code biz_job_lease}: one retention runner per database and table prefix. */
    public static final String LEASE_NAME = "postbox-retention";

    private Retention(Settings settings, RetentionPolicy policy, Config config) {
        this.settings = settings;
        this.policy = policy;
        this.config = config;
        PartitionOps ops = policy.strategy(RetentionTable.OUTBOX) == RetentionPolicy.Strategy.PARTITIONS
                ? PartitionOps.of(settings.dialect()) : null;
        this.partitions = ops == null ? null : new PartitionSweep(settings.dialect(), ops, settings.tables(),
                policy.rules(RetentionTable.OUTBOX));
        for (RetentionTable t : RetentionTable.values()) {
            if (!policy.rules(t).isEmpty() && !(t == RetentionTable.OUTBOX && partitions != null)) {
                sweeps.add(new Sweep(settings.dialect(), settings.tables(), t, policy.rules(t),
                        (int) Math.max(1, config.statementTimeout().toSeconds())));
            }
        }
        // two connections: a run holds one, so health, metrics and lease reads never wait behind it
        this.pool = Pools.own(settings.dataSource(), "postbox-retention", 2);
        this.lease = new JobLease(settings.dialect(), pool, settings.tables().jobLease(), LEASE_NAME,
                config.instanceId(), config.leaseTtl());
        this.loop = new PollLoop("Retention " + config.instanceId(), "postbox-retention", 1, config.interval(),
                config.interval(), log);
    }

    /** This instance's id: the owner of the retention lease while it runs. */
    public String instanceId() {
        return config.instanceId();
    }

    /**
     * Runs {@link #runOnce()} now and then every interval on a daemon thread, in every application
     * instance alike: the instance that holds the retention lease runs, the others find it held and wait
     * for their next turn (they take over one lease after the runner died). A run that stopped at its
     * budget is followed by the next one at once. Returns this retention.
     */
    public Retention start() {
        loop.start(i -> () -> {
            RetentionReport report = runOnce();
            return report.ran() && !report.complete() ? PollLoop.Outcome.MORE : PollLoop.Outcome.NONE;
        });
        return this;
    }

    /** Who holds the retention lease ({@link #LEASE_NAME}) and until when, by the database's clock. */
    public record LeaseHolder(String instanceId, Instant until) {
    }

    /** Who holds the retention lease now (this instance or another); empty if nobody. */
    public java.util.Optional<LeaseHolder> leaseHolder() {
        return lease.holder().map(h -> new LeaseHolder(h.owner(), h.until()));
    }

    /** The policy this retention carries out. */
    public RetentionPolicy policy() {
        return policy;
    }

    /**
     * Removes what the policy says is due, table by table, until every table's walk completes or the run's
     * budget ({@link Builder#maxRowsPerRun}, {@link Builder#maxRunTime}) is spent.
     */
    public synchronized RetentionReport runOnce() {
        try {
            if (!lease.acquire()) {
                String holder = lease.holder().map(JobLease.Holder::owner).orElse("another instance");
                log.debug("Retention {}: the lease is held by {}; not running", config.instanceId(), holder);
                return new RetentionReport(settings.now(), Duration.ZERO, List.of(), holder);
            }
            RetentionReport report = run();
            if (report.ran()) {
                Map<RetentionTable, Long> byTable = new EnumMap<>(RetentionTable.class);
                byTable.putAll(status.removedByTable());
                report.tables().forEach(t -> byTable.merge(t.table(), t.removed(), Long::sum));
                status = new Status(report, report.started().plus(report.elapsed()), status.totalRemoved() + report.removed(),
                        Map.copyOf(byTable), status.lastFailure(), status.lastFailureTime(),
                        partitions == null ? null : lastRunway);
            }
            return report;
        } catch (RuntimeException | Error e) {
            status = new Status(status.lastReport(), status.lastSuccess(), status.totalRemoved(), status.removedByTable(),
                    String.valueOf(e.getMessage()), settings.now(), status.partitionRunway());
            throw e;
        }
    }

    /**
     * What this instance's runs did so far: for health and metrics.
     *
     * @param lastReport      the last run that completed without an error (this instance held the lease), or null
     * @param lastSuccess     when it ended, or null
     * @param totalRemoved    rows removed by every run of this instance
     * @param removedByTable  the same per table (tables with rules only)
     * @param lastFailure     the last run's error that ended it, or null
     * @param lastFailureTime when, or null
     * @param partitionRunway with the partitions strategy, how far ahead of the database's clock the outbox's
     *                        partitions reached after the last run (a write past it would fail), else null
     */
    public record Status(RetentionReport lastReport, Instant lastSuccess, long totalRemoved,
                         Map<RetentionTable, Long> removedByTable, String lastFailure, Instant lastFailureTime,
                         Duration partitionRunway) {
    }

    /**
     * The clock of this retention's times ({@link Status#lastSuccess()} and the like): its Postbox's. Ages and
     * runways shown beside the status are measured on it, so that a test clock moves them too.
     */
    public java.time.Clock clock() {
        return settings.clock();
    }

    /** What this instance's runs did so far. */
    public Status status() {
        return status;
    }

    private RetentionReport run() {
        Instant started = settings.now();
        long t0 = System.nanoTime();
        long deadline = t0 + config.maxRunTime().toNanos();
        long budget = config.maxRowsPerRun();
        long renewed = t0;
        long renewEvery = config.leaseTtl().toNanos() / 3;
        List<RetentionReport.TableRun> runs = new ArrayList<>();
        if (partitions != null) {
            long runDeadline = deadline;
            long[] renewedAt = {renewed};
            boolean[] lost = {false};
            PartitionSweep.Result r = partitions.run(pool, config.lockTimeout(), config.partitionsAhead(),
                    config.batchSize(), budget, () -> {
                        if (loop.closing() || System.nanoTime() - runDeadline > 0 || lost[0]) {
                            return false;
                        }
                        if (System.nanoTime() - renewedAt[0] > renewEvery) {
                            if (!lease.renew()) {
                                log.warn("Retention {}: lost the retention lease mid-run; stopping", config.instanceId());
                                lost[0] = true;
                                return false;
                            }
                            renewedAt[0] = System.nanoTime();
                        }
                        return true;
                    }, took -> yieldTo(config.dutyCycle(RetentionPolicy.Strategy.DELETE), took, runDeadline), settings.now());
            lastRunway = r.runway();
            budget -= r.removed();
            renewed = renewedAt[0];
            RetentionReport.Stop stop = lost[0] ? RetentionReport.Stop.LEASE_LOST : r.stop();
            runs.add(new RetentionReport.TableRun(RetentionTable.OUTBOX, RetentionPolicy.Strategy.PARTITIONS, r.removed(),
                    0, 0, r.partitions(), r.longestDrop(), r.longestDetach(), stop));
            if (r.runway().compareTo(config.partitionsAhead().dividedBy(2)) < 0) {
                log.warn("Retention {}: the outbox's partitions reach only {} ahead of the database's clock (partitionsAhead"
                        + " {}); a write past them fails", config.instanceId(), r.runway(), config.partitionsAhead());
            }
            if (stop == RetentionReport.Stop.LEASE_LOST) {
                return new RetentionReport(started, Duration.ofNanos(System.nanoTime() - t0), runs, null);
            }
        }
        for (Sweep sweep : sweeps) {
            RetentionTable table = sweep.table();
            RetentionPolicy.Strategy strategy = policy.strategy(table);
            Instant now = settings.now();
            Instant[] cutoffs = sweep.cutoffs(now);
            Instant newest = now.minus(policy.shortestKeep(table));
            Instant archiveAt = strategy == RetentionPolicy.Strategy.ARCHIVE ? now : null;
            long after = cursors.getOrDefault(table, 0L);
            long removed = 0;
            int batches = 0;
            int windows = 0;
            RetentionReport.Stop stop = RetentionReport.Stop.COMPLETE;
            while (true) {
                if (budget <= 0 || loop.closing()) {
                    stop = RetentionReport.Stop.BUDGET;
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    stop = RetentionReport.Stop.TIME;
                    break;
                }
                if (System.nanoTime() - renewed > renewEvery) {
                    if (!lease.renew()) {
                        log.warn("Retention {}: lost the retention lease mid-run; stopping", config.instanceId());
                        stop = RetentionReport.Stop.LEASE_LOST;
                        break;
                    }
                    renewed = System.nanoTime();
                }
                int size = (int) Math.min(config.batchSize(), budget);
                long from = after;
                long batchStart = System.nanoTime();
                Step step = inTransaction(table, "removing in the window after id " + from, c -> {
                    Sweep.Window window = sweep.window(c, from, size, newest);
                    return new Step(window, window.rows() == 0 ? 0 : sweep.remove(c, from, window.lastId(), cutoffs, archiveAt));
                });
                Sweep.Window w = step.window();
                if (w.rows() == 0) {
                    break;
                }
                windows++;
                int n = step.removed();
                if (n > 0) {
                    batches++;
                    removed += n;
                    budget -= n;
                    yieldTo(config.dutyCycle(strategy), System.nanoTime() - batchStart, deadline);
                }
                after = w.lastId();
                if (w.allYoung() || w.rows() < size) {
                    break;
                }
            }
            if (stop == RetentionReport.Stop.COMPLETE) {
                cursors.remove(table);
            } else {
                cursors.put(table, after);
            }
            runs.add(new RetentionReport.TableRun(table, strategy, removed, batches, windows, 0, Duration.ZERO, Duration.ZERO,
                    stop));
            if (removed > 0) {
                log.info("Retention: {} {} rows of {} ({} batches, {})", strategy == RetentionPolicy.Strategy.ARCHIVE
                        ? "archived" : "deleted", removed, table.table(settings.tables()), batches, stop);
            }
        }
        return new RetentionReport(started, Duration.ofNanos(System.nanoTime() - t0), runs, null);
    }

    /** The runway the last partition run left (written and read by runs only, which are serialized). */
    private Duration lastRunway;

    /** One window of a run, read and cleared in one transaction: the window, and the rows removed from it. */
    private record Step(Sweep.Window window, int removed) {
    }

    /**
     * Gives way to the live traffic after a batch that took {@code tookNanos}: pauses so that batches take
     * at most {@code duty} of the run's time (at 0.5, a pause as long as the batch), never past the run's
     * deadline, and not at all once the schedule is closing.
     */
    private void yieldTo(double duty, long tookNanos, long deadline) {
        if (duty >= 1.0) {
            return;
        }
        long pause = Math.min((long) (tookNanos * (1.0 - duty) / duty), deadline - System.nanoTime());
        if (pause <= 0 || loop.closing()) {
            return;
        }
        try {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What a run would remove now, per table and status, with the bytes that frees as the catalog estimates
     * them; reads the tables as a run does (window by window, no budget) and removes nothing.
     */
    public synchronized RetentionPlan plan() {
        List<RetentionPlan.Entry> entries = new ArrayList<>();
        List<RetentionPlan.Partition> due = partitions == null ? List.of()
                : partitions.due(pool);
        for (Sweep sweep : sweeps) {
            RetentionTable table = sweep.table();
            Instant now = settings.now();
            Instant[] cutoffs = sweep.cutoffs(now);
            Instant newest = now.minus(policy.shortestKeep(table));
            Map<String, Long> counts = new java.util.LinkedHashMap<>();
            long after = 0;
            while (true) {
                long from = after;
                Sweep.Window w = inTransaction(table, "counting in the window after id " + from, c -> {
                    Sweep.Window window = sweep.window(c, from, config.batchSize(), newest);
                    if (window.rows() > 0) {
                        sweep.count(c, from, window.lastId(), cutoffs).forEach((s, n) -> counts.merge(s, n, Long::sum));
                    }
                    return window;
                });
                if (w.rows() == 0) {
                    break;
                }
                after = w.lastId();
                if (w.allYoung() || w.rows() < config.batchSize()) {
                    break;
                }
            }
            double rowBytes = averageRowBytes(table);
            List<String> order = table.removableStatuses().isEmpty() ? List.of("ANY") : table.removableStatuses();
            for (String status : order) {
                long rows = counts.getOrDefault(status, 0L);
                if (rows > 0) {
                    entries.add(new RetentionPlan.Entry(table, status, policy.strategy(table), rows,
                            rowBytes < 0 ? -1 : Math.round(rows * rowBytes)));
                }
            }
        }
        return new RetentionPlan(entries, due);
    }

    /** The table's bytes per row as the catalog estimates them, or -1 without an estimate. */
    private double averageRowBytes(RetentionTable table) {
        TableSize size = size(table);
        return size.rows() <= 0 || size.bytes() < 0 ? -1 : (double) size.bytes() / size.rows();
    }

    /**
     * A table's size as the database's catalog estimates it, reading no row of it.
     *
     * @param rows  estimated rows, or -1 where the catalog keeps no estimate
     * @param bytes heap, indexes and TOAST together, or -1 where the catalog keeps none (H2)
     */
    public record TableSize(long rows, long bytes) {
    }

    /** The catalog's estimate of {@code table}'s size (the online table, not its archive). */
    public TableSize size(RetentionTable table) {
        if (settings.dialect().tableSizeSql() == null) {
            return new TableSize(-1, -1);
        }
        String name = table.table(settings.tables());
        CatalogSize s = Transactions.inTransaction(pool, "retention: the catalog's size of " + name,
                c -> CatalogSize.read(c, settings.dialect(), name));
        return new TableSize(s.rows(), s.bytes());
    }

    private <T> T inTransaction(RetentionTable table, String what, Transactions.Work<T> work) {
        Dialect dialect = settings.dialect();
        String lockSql = dialect.lockTimeoutSql(config.lockTimeout());
        Sweep sweep = sweeps.stream().filter(s -> s.table() == table).findFirst().orElseThrow();
        return Transactions.inTransaction(pool, "retention of " + table.table(settings.tables()) + ": " + what, c -> {
            sweep.begin(c, lockSql);
            return work.run(c);
        });
    }

    /**
     * Stops the schedule (waiting for the run in progress, which ends at its next window once closing),
     * gives the retention lease back so another instance takes over at its next turn, and closes the pool.
     */
    @Override
    public void close() {
        try {
            loop.close(config.maxRunTime().plusSeconds(30), Duration.ZERO);
            if (!pool.isClosed()) {
                lease.release();
            }
        } catch (RuntimeException e) {
            log.warn("Retention {}: could not give the lease back ({}); it expires on its own", config.instanceId(),
                    e.toString());
        } finally {
            pool.close();
        }
    }

    /** Configures a {@link Retention}; {@link #build()} validates and freezes it. Not thread-safe. */
    public static final class Builder {
        /** Default rows per window and per transaction. */
        public static final int DEFAULT_BATCH_SIZE = 1_000;
        /** Largest batch: bigger transactions hold locks long enough to stall writers. */
        public static final int MAX_BATCH_SIZE = 10_000;
        /** Default longest run. */
        public static final Duration DEFAULT_MAX_RUN_TIME = Duration.ofMinutes(5);
        /** Default row-lock wait of a statement. */
        public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);
        /** Default longest statement. */
        public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);
        /**
         * Default share of a run's time spent in deleting transactions: half, each batch followed by a pause as
         * long as it took, so that writers and relays get the database's WAL and locks between batches
         * (PostgreSQL, 1M rows of history under a steady stream: producers' p99 0.73 of its value without
         * cleanup at 1, 0.91 at 0.5).
         */
        public static final double DEFAULT_DUTY_CYCLE = 0.5;
        /**
         * Default for archived tables, whose batches write every row twice (the archive and the delete): a
         * quarter (p99 0.46 at 1, 0.68 at 0.5, 0.86 at 0.25 in the same bench; still 7,200 rows/s).
         */
        public static final double DEFAULT_ARCHIVE_DUTY_CYCLE = 0.25;
        /** Default time between scheduled runs. */
        public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(10);
        /** Default runway of a partitioned outbox: partitions are created a week ahead. */
        public static final Duration DEFAULT_PARTITIONS_AHEAD = Duration.ofDays(7);
        /** Default rows one run removes at most. */
        public static final long DEFAULT_MAX_ROWS_PER_RUN = 1_000_000;

        private final Settings settings;
        private final RetentionPolicy policy;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private long maxRowsPerRun = DEFAULT_MAX_ROWS_PER_RUN;
        private Duration maxRunTime = DEFAULT_MAX_RUN_TIME;
        private Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
        private Duration interval = DEFAULT_INTERVAL;
        private String instanceId = defaultInstanceId();
        private Double dutyCycle;
        private Duration partitionsAhead = DEFAULT_PARTITIONS_AHEAD;

        Builder(Settings settings, RetentionPolicy policy) {
            this.settings = settings;
            this.policy = Objects.requireNonNull(policy, "policy");
        }

        /** Rows per primary-key window and per removing transaction (1..10,000; default 1,000). */
        public Builder batchSize(int batchSize) {
            this.batchSize = Check.range("batchSize", batchSize, 1, MAX_BATCH_SIZE);
            return this;
        }

        /** Rows one run removes at most (1..1,000,000,000; default 1,000,000). */
        public Builder maxRowsPerRun(long maxRowsPerRun) {
            if (maxRowsPerRun < 1 || maxRowsPerRun > 1_000_000_000L) {
                throw new ValidationException("maxRowsPerRun", "must be between 1 and 1000000000 (was " + maxRowsPerRun + ")");
            }
            this.maxRowsPerRun = maxRowsPerRun;
            return this;
        }

        /** How long one run may take before it stops at the next window (1 s..24 h; default 5 min). */
        public Builder maxRunTime(Duration maxRunTime) {
            this.maxRunTime = duration("maxRunTime", maxRunTime, Duration.ofSeconds(1), Duration.ofHours(24));
            return this;
        }

        /** How long a statement waits for a row lock before the batch gives way (100 ms..60 s; default 2 s). */
        public Builder lockTimeout(Duration lockTimeout) {
            this.lockTimeout = duration("lockTimeout", lockTimeout, Duration.ofMillis(100), Duration.ofSeconds(60));
            return this;
        }

        /** How long one statement may run (1 s..10 min; default 30 s). */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = duration("statementTimeout", statementTimeout, Duration.ofSeconds(1),
                    Duration.ofMinutes(10));
            return this;
        }

        /**
         * The share of a run's time its removing transactions may take, for every table (0.05..1; default
         * {@value #DEFAULT_DUTY_CYCLE} for deleted tables, {@value #DEFAULT_ARCHIVE_DUTY_CYCLE} for archived
         * ones): after a batch that took t, the run pauses {@code t * (1 - dutyCycle) / dutyCycle}. 1 removes
         * as fast as the database allows; lower gives the live traffic more room at the cost of cleanup speed.
         */
        public Builder dutyCycle(double dutyCycle) {
            if (!(dutyCycle >= 0.05 && dutyCycle <= 1.0)) {
                throw new ValidationException("dutyCycle", "must be between 0.05 and 1 (was " + dutyCycle + ")");
            }
            this.dutyCycle = dutyCycle;
            return this;
        }

        /**
         * With the partitions strategy: how far ahead of the database's clock each run creates the outbox's
         * partitions (1 h..366 d; default 7 days). A write with no partition for its time fails, so this is the
         * time retention may be down before writes fail; the runway is reported in {@link Status}.
         */
        public Builder partitionsAhead(Duration partitionsAhead) {
            this.partitionsAhead = duration("partitionsAhead", partitionsAhead, Duration.ofHours(1), Duration.ofDays(366));
            return this;
        }

        /** Time between scheduled runs ({@link #start()}; 1 s..24 h; default 10 min). */
        public Builder interval(Duration interval) {
            this.interval = duration("interval", interval, Duration.ofSeconds(1), Duration.ofHours(24));
            return this;
        }

        /**
         * This instance's id, the owner of the retention lease while it runs: unique per process (default:
         * host name, process id and a random suffix); at most 128 characters.
         */
        public Builder instanceId(String instanceId) {
            this.instanceId = Check.key("instanceId", instanceId, 128);
            return this;
        }

        private static String defaultInstanceId() {
            String host;
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "host";
            }
            String id = host + "-" + ProcessHandle.current().pid() + "-"
                    + Integer.toString(java.util.concurrent.ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
            return id.length() > 100 ? id.substring(id.length() - 100) : id;
        }

        private static Duration duration(String field, Duration value, Duration min, Duration max) {
            if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new ValidationException(field, "must be between " + min + " and " + max + " (was " + value + ")");
            }
            return value;
        }

        /** The retention, with its own two-connection pool; close it when done. */
        public Retention build() {
            if (policy.strategy(RetentionTable.OUTBOX) == RetentionPolicy.Strategy.PARTITIONS
                    && PartitionOps.of(settings.dialect()) == null) {
                throw new ValidationException("outbox.strategy", settings.dialect().name()
                        + " has no time partitions: use the delete or archive strategy there");
            }
            return new Retention(settings, policy,
                    new Config(batchSize, maxRowsPerRun, maxRunTime, lockTimeout, statementTimeout, interval, instanceId,
                            dutyCycle, partitionsAhead));
        }
    }
}
