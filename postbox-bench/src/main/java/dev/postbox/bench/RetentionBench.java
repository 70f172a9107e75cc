package dev.postbox.bench;

import dev.postbox.outbox.OutboxStatus;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionReport;
import dev.postbox.retention.RetentionTable;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code retention}: what a retention cleanup of a large history costs the live traffic. Preloads
 * {@code --history} PUBLISHED rows aged {@code --history-age} days (default {@value #HISTORY_AGE_DAYS}; ids below every live event's, as old
 * rows are; then ANALYZE, as a table that size in service is), so that the policy
 * {@code outbox(PUBLISHED, 7 days)} (with {@code archive(OUTBOX)} for {@code --strategy archive}) removes
 * exactly those rows. Then, after an unmeasured warm-up of the same workload (at most {@value #WARMUP_SECONDS} s,
 * so that the baseline does not pay for the JIT and the pools), two phases of {@code --seconds} each, the steady scenario's workload: P closed-loop
 * producers (a business row and one event per transaction, after-commit wake-up) and one relay with the null
 * sink. "baseline" runs it alone; "cleanup" runs it with one thread calling {@code retention.runOnce()} in a
 * loop on its own {@link Retention} (batch {@code --batch}, at most {@value #BATCHES_PER_RUN} batches a run so
 * that it stops with the window; a run that found nothing to remove waits {@value #IDLE_MS} ms). Each phase's
 * backlog is drained before the next one.
 *
 * <p>Reports per phase the producers' transaction p50/p99 and the events produced and delivered per second
 * within the window; for cleanup also the rows removed and their rate (over the time until the last run that
 * removed rows ended, so a history removed before the window's end is not diluted). Verifies at the end that
 * no live event was removed (every produced event delivered, each still in the table, PUBLISHED and younger
 * than the 7 days, none in the archive) and that the rows removed, counted in the database (and in the archive
 * when archiving), are the ones the runs reported, all of them history. CPU per 1,000 events is the cleanup
 * phase's (window and backlog drain; retention's client side included).
 */
final class RetentionBench implements Scenario {

    static final int HISTORY_AGE_DAYS = 30;
    static final int KEEP_DAYS = 7;
    static final int BATCHES_PER_RUN = 10;
    static final long IDLE_MS = 200;
    private static final int RELAY_BATCH = 500;
    private static final long STALL_MS = 60_000;
    /** The cleanup phase's first seq (event_no and business row id), far above the baseline's. */
    static final long CLEANUP_FIRST_SEQ = 1_000_000_000L;
    /** The warm-up's first seq, above both. */
    static final long WARMUP_FIRST_SEQ = 2_000_000_000L;
    /** The file-system ceiling phase's first seq, above every other. */
    static final long FS_FIRST_SEQ = 3_000_000_000L;
    /** When, into the window, the ceiling phase removes its file (the cleanup's first drop comes about as soon). */
    static final long FS_REMOVE_DELAY_MS = 500;
    /** The unmeasured warm-up's length at most, so that the baseline does not pay for the JIT and the pools. */
    static final int WARMUP_SECONDS = 5;

    @Override
    public String name() {
        return "retention";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("history", "5000000");
        d.put("producers", "4");
        d.put("seconds", "20");
        d.put("batch", "1000");
        d.put("strategy", "delete");
        d.put("duty-cycle", "default");
        d.put("aggregates", "1000");
        d.put("fs-ceiling", "on");
        d.put("history-age", String.valueOf(HISTORY_AGE_DAYS));
        return d;
    }

    @Override
    public void validate(Options o) {
        if (BenchDatabase.kind(o.string("db")).equals("h2")) {
            throw new UsageException("retention runs on --db postgres or mariadb");
        }
        o.positiveInt("history");
        o.positiveInt("seconds");
        int batch = o.positiveInt("batch");
        if (batch > Retention.Builder.MAX_BATCH_SIZE) {
            throw new UsageException("option --batch must be at most " + Retention.Builder.MAX_BATCH_SIZE + " (was " + batch + ")");
        }
        strategy(o);
        o.onOff("fs-ceiling");
        int age = o.positiveInt("history-age");
        if (age <= KEEP_DAYS || age > 365) {
            throw new UsageException("option --history-age must be between " + (KEEP_DAYS + 1) + " and 365 days (was " + age
                    + "): the history must be due under the policy's " + KEEP_DAYS + " days");
        }
        new Aggregates(o.positiveInt("aggregates"), o.positiveInt("producers"));
    }


    /**
     * {@code --duty-cycle}: the share of the cleanup's time in removing transactions (0.05..1), or
     * {@code default}: the core's default for the strategy.
     */
    private static double dutyCycle(Options o, RetentionPolicy.Strategy strategy) {
        String v = o.string("duty-cycle");
        if (v.equals("default")) {
            return strategy == RetentionPolicy.Strategy.ARCHIVE ? Retention.Builder.DEFAULT_ARCHIVE_DUTY_CYCLE
                    : Retention.Builder.DEFAULT_DUTY_CYCLE;
        }
        try {
            double d = Double.parseDouble(v);
            if (d >= 0.05 && d <= 1.0) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("option --duty-cycle must be default or a number between 0.05 and 1 (was '" + v + "')");
    }
    /** {@code --strategy}: delete, archive or partitions (the outbox converted to daily partitions first). */
    static RetentionPolicy.Strategy strategy(Options o) {
        return switch (o.string("strategy")) {
            case "delete" -> RetentionPolicy.Strategy.DELETE;
            case "archive" -> RetentionPolicy.Strategy.ARCHIVE;
            case "partitions" -> RetentionPolicy.Strategy.PARTITIONS;
            default -> throw new UsageException("option --strategy must be delete, archive or partitions (was '"
                    + o.string("strategy") + "')");
        };
    }

    /** After-commit wake-up in the JVM, as the steady scenario's default: no NOTIFY. */
    @Override
    public boolean notifications(Options o) {
        return false;
    }

    @Override
    public int poolSize(Options o) {
        return o.positiveInt("producers");
    }

    /** One phase's figures. */
    private record Phase(String name, ClosedLoopProducers.Stats stats, long deliveredInWindow, long backlog,
                         boolean complete, Receiver receiver, long cpuNanos) {

        double producedEps() {
            return stats.produced() / stats.seconds();
        }

        double deliveredEps() {
            return deliveredInWindow / stats.seconds();
        }

        double p99Ms() {
            return stats.txMicros().getValueAtPercentile(99) / 1000.0;
        }

        boolean clean() {
            return complete && stats.failed() == 0 && receiver.distinct() == stats.produced()
                    && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
        }

        String line() {
            return "PHASE name=" + name + " produced=" + stats.produced() + " produced_eps=" + Fmt.rate(producedEps())
                    + " delivered_eps=" + Fmt.rate(deliveredEps()) + " backlog=" + backlog
                    + " tx_" + LatencyTracker.percentiles(stats.txMicros(), true).replace(" p", " tx_p")
                    + " commit_" + LatencyTracker.percentiles(stats.commitMicros(), false).replace(" p", " commit_p")
                    + " received=" + receiver.distinct() + " duplicates=" + receiver.duplicates()
                    + " order_violations=" + receiver.orderViolations() + " failed_writes=" + stats.failed()
                    + " cpu_ms_per_1k=" + CpuClock.per1k(cpuNanos, stats.produced());
        }
    }

    /** The cleanup thread: {@code runOnce()} in a loop until stopped. */
    private static final class Cleaner {
        private final Retention retention;
        private final Thread thread;
        private final AtomicLong removed = new AtomicLong();
        private final AtomicLong runs = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private final long startNanos = System.nanoTime();
        private volatile long lastRemovalEnd = startNanos;
        private final AtomicLong partitions = new AtomicLong();
        private volatile long longestDropNanos;
        private volatile long longestDetachNanos;
        private volatile long finishedAt = -1;
        private volatile boolean stop;

        Cleaner(Retention retention) {
            this.retention = retention;
            this.thread = new Thread(this::loop, "bench-retention");
            thread.start();
        }

        private void loop() {
            while (!stop) {
                try {
                    RetentionReport r = retention.runOnce();
                    runs.incrementAndGet();
                    RetentionReport.TableRun outbox = r.table(RetentionTable.OUTBOX);
                    if (outbox != null && outbox.partitions() > 0) {
                        partitions.addAndGet(outbox.partitions());
                        longestDropNanos = Math.max(longestDropNanos, outbox.longestDrop().toNanos());
                        longestDetachNanos = Math.max(longestDetachNanos, outbox.longestDetach().toNanos());
                    }
                    if (r.removed() > 0) {
                        removed.addAndGet(r.removed());
                        lastRemovalEnd = System.nanoTime();
                    } else if (r.complete()) {
                        if (finishedAt < 0) {
                            finishedAt = System.nanoTime();
                        }
                        Thread.sleep(IDLE_MS);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    if (failures.incrementAndGet() <= 5) {
                        System.err.println("WARN retention run failed: " + e);
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }

        /** Stops after the run in progress (at most {@value #BATCHES_PER_RUN} batches). */
        void stop() throws InterruptedException {
            stop = true;
            thread.join();
        }

        double removingSeconds() {
            return (lastRemovalEnd - startNanos) / 1e9;
        }

        String line() {
            double s = removingSeconds();
            return "CLEANUP removed=" + removed.get() + " rows_per_s=" + (s > 0 ? Fmt.rate(removed.get() / s) : "n/a")
                    + " removing_seconds=" + Fmt.two(s)
                    + " history_done_at_s=" + (finishedAt < 0 ? "never" : Fmt.two((finishedAt - startNanos) / 1e9))
                    + " runs=" + runs.get() + " failed_runs=" + failures.get() + " partitions_dropped=" + partitions.get()
                    + " longest_drop_ms=" + Fmt.two(longestDropNanos / 1e6) + " longest_detach_ms="
                    + Fmt.two(longestDetachNanos / 1e6);
        }
    }

    private Phase phase(BenchContext ctx, Options o, String name, int seconds, long firstSeq, Retention retention,
                        Cleaner[] cleanerOut) throws Exception {
        return phase(ctx, o, name, seconds, firstSeq, retention, cleanerOut, null, null);
    }

    /** A phase; with {@code removeFile} the file is removed {@value #FS_REMOVE_DELAY_MS} ms into the window. */
    private Phase phase(BenchContext ctx, Options o, String name, int seconds, long firstSeq, Retention retention,
                        Cleaner[] cleanerOut, java.nio.file.Path removeFile, FsCeiling.Removal[] removalOut)
            throws Exception {
        int producers = o.positiveInt("producers");
        Receiver receiver = new Receiver();
        RelayTimers timers = new RelayTimers();
        ClosedLoopProducers.Stats stats;
        long deliveredInWindow;
        long backlog;
        boolean complete;
        long cpuNanos;
        Fmt.line("PHASE start name=" + name + " seconds=" + seconds);
        RelayGroup relays = RelayGroup.start(ctx, Sinks.create(Sinks.NULL, receiver), 1, RELAY_BATCH, timers);
        try {
            Runnable hook = ctx.postbox::wakeRelays;
            ClosedLoopProducers loop = new ClosedLoopProducers(new EventWriter(ctx.postbox, ctx.pool),
                    new Aggregates(o.positiveInt("aggregates"), producers), producers, seq -> hook.run(), firstSeq);
            long started = System.nanoTime();
            CpuClock cpu = CpuClock.start();
            Cleaner cleaner = retention == null ? null : new Cleaner(retention);
            FsCeiling.Removal removal = removeFile == null ? null : new FsCeiling.Removal(removeFile, FS_REMOVE_DELAY_MS);
            ProgressReporter reporter = ProgressReporter.start(receiver::distinct, timers, started);
            try {
                stats = loop.run(seconds);
                deliveredInWindow = receiver.distinct();
            } finally {
                if (cleaner != null) {
                    cleaner.stop();
                }
                if (removal != null) {
                    removal.join();
                    removalOut[0] = removal;
                }
                reporter.stop();
            }
            cleanerOut[0] = cleaner;
            backlog = ctx.countOutbox("publish_status IN (0, 1, 3)");
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(stats.produced(), STALL_MS);
            cpuNanos = cpu.elapsedNanos();
        } finally {
            relays.close();
        }
        Fmt.line("PROFILE phase=" + name + " " + timers.total() + " " + timers.failures());
        return new Phase(name, stats, deliveredInWindow, backlog, complete, receiver, cpuNanos);
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int history = o.positiveInt("history");
        RetentionPolicy.Strategy strategy = strategy(o);
        String kind = ctx.db.kind();
        String outbox = ctx.outbox();
        String archive = outbox + "_archive";

        boolean partitioned = strategy == RetentionPolicy.Strategy.PARTITIONS;
        if (partitioned) {
            long t0 = System.nanoTime();
            ctx.postbox.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(KEEP_DAYS),
                    java.time.Instant.now().minus(Duration.ofDays(o.positiveInt("history-age") + 1)));
            Fmt.line("PARTITIONS converted the outbox: " + ctx.postbox.outboxPartitions().list().size()
                    + " daily partitions, seconds=" + Fmt.two((System.nanoTime() - t0) / 1e9));
        }
        History.insert(ctx, history, o.positiveInt("aggregates"), o.positiveInt("history-age"), partitioned);
        long analyzeStart = System.nanoTime();
        ctx.db.analyze(outbox);
        Fmt.line("ANALYZE " + outbox + " seconds=" + Fmt.two((System.nanoTime() - analyzeStart) / 1e9)
                + " (a table of this size in service has statistics)");

        RetentionPolicy.Builder pb = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(KEEP_DAYS));
        if (strategy == RetentionPolicy.Strategy.ARCHIVE) {
            pb.archive(RetentionTable.OUTBOX);
        } else if (partitioned) {
            pb.partitions(RetentionTable.OUTBOX);
        }
        RetentionPolicy policy = pb.build();
        int batch = o.positiveInt("batch");
        Fmt.line("POLICY " + policy + " batch=" + batch + " duty_cycle=" + dutyCycle(o, strategy) + " max_rows_per_run=" + (long) batch * BATCHES_PER_RUN
                + " idle_ms=" + IDLE_MS);

        int seconds = o.positiveInt("seconds");
        Phase warmup = phase(ctx, o, "warmup", Math.min(seconds, WARMUP_SECONDS), WARMUP_FIRST_SEQ, null, new Cleaner[1]);
        Fmt.line(warmup.line() + " (not measured: the JIT's and the pools' warm-up)");
        Phase baseline = phase(ctx, o, "baseline", seconds, 0, null, new Cleaner[1]);
        Fmt.line(baseline.line());

        // what the drops will remove, for the file-system ceiling: the partitions due and the key table (its
        // generations hold the history's keys), by the catalog
        long dueBytes = 0;
        if (partitioned) {
            for (var p : ctx.postbox.outboxPartitions().list()) {
                if (p.estimatedRows() > 0 && p.to().isBefore(java.time.Instant.now().minus(Duration.ofDays(KEEP_DAYS)))) {
                    dueBytes += p.estimatedBytes();
                }
            }
            dueBytes += ctx.db.queryLong(kind.equals("mariadb")
                    ? "SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0) FROM information_schema.PARTITIONS WHERE"
                            + " TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + outbox + "_key'"
                    : "SELECT COALESCE(SUM(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits WHERE inhparent ="
                            + " to_regclass('" + outbox + "_key')");
            Fmt.line("PARTITIONS due bytes=" + dueBytes + " (the history's partition and the key table, by the catalog)");
        }

        Cleaner[] cleanerOut = new Cleaner[1];
        Phase cleanup;
        try (Retention retention = ctx.postbox.retention(policy).batchSize(batch)
                .maxRowsPerRun((long) batch * BATCHES_PER_RUN).dutyCycle(dutyCycle(o, strategy)).build()) {
            cleanup = phase(ctx, o, "cleanup", seconds, CLEANUP_FIRST_SEQ, retention, cleanerOut);
        }
        Cleaner cleaner = cleanerOut[0];
        Fmt.line(cleanup.line());
        Fmt.line(cleaner.line());

        // the file system's ceiling: the same workload while a file of the dropped bytes is removed
        Phase fs = null;
        FsCeiling.Removal[] removal = new FsCeiling.Removal[1];
        java.nio.file.Path fsDir = partitioned && o.onOff("fs-ceiling") && dueBytes > 0 ? FsCeiling.directory(ctx) : null;
        if (fsDir != null) {
            java.nio.file.Path file = FsCeiling.write(fsDir, dueBytes);
            try {
                Thread.sleep(2_000);
                fs = phase(ctx, o, "fs_ceiling", seconds, FS_FIRST_SEQ, null, new Cleaner[1], file, removal);
            } finally {
                java.nio.file.Files.deleteIfExists(file);
            }
            Fmt.line(fs.line());
            Fmt.line("FS_CEILING removed " + dueBytes + " bytes in " + Fmt.two(removal[0].nanos() / 1e6) + " ms, "
                    + FS_REMOVE_DELAY_MS + " ms into the window");
        }

        // what the database holds now
        long produced = warmup.stats().produced() + baseline.stats().produced() + cleanup.stats().produced()
                + (fs == null ? 0 : fs.stats().produced());
        String ev = "event_no LIKE '" + EventWriter.EVENT_NO_PREFIX + "%'";
        String hist = "event_no LIKE 'H-%'";
        String young = kind.equals("mariadb") ? "update_time >= UTC_TIMESTAMP(3) - INTERVAL " + KEEP_DAYS + " DAY"
                : "update_time >= now() - interval '" + KEEP_DAYS + " days'";
        long liveRows = ctx.countOutbox(ev);
        long livePublishedYoung = ctx.countOutbox(ev + " AND publish_status = " + OutboxStatus.PUBLISHED.code() + " AND " + young);
        long liveArchived = ctx.db.queryLong("SELECT COUNT(*) FROM " + archive + " WHERE " + ev);
        long historyLeft = ctx.countOutbox(hist);
        long otherRows = ctx.countOutbox("NOT (" + ev + ") AND NOT (" + hist + ")");
        long historyArchived = ctx.db.queryLong("SELECT COUNT(*) FROM " + archive + " WHERE " + hist);
        long archiveRows = ctx.db.queryLong("SELECT COUNT(*) FROM " + archive);
        long removedInDb = history - historyLeft;
        long expectedArchived = strategy == RetentionPolicy.Strategy.ARCHIVE ? removedInDb : 0;
        Fmt.line("VERIFY produced=" + produced + " live_rows=" + liveRows + " live_published_young=" + livePublishedYoung
                + " live_archived=" + liveArchived + " history_removed_db=" + removedInDb + " history_removed_reported="
                + cleaner.removed.get() + " history_left=" + historyLeft + " archive_rows=" + archiveRows
                + " history_archived=" + historyArchived + " other_rows=" + otherRows);
        long keysLeft = partitioned ? ctx.db.queryLong("SELECT COUNT(*) FROM " + outbox + "_key WHERE event_no LIKE 'H-%'") : 0;
        if (partitioned) {
            Fmt.line("VERIFY partitions: history keys left=" + keysLeft + " (the runs' row count is the catalog's estimate: "
                    + cleaner.removed.get() + ")");
        }
        boolean ok = warmup.clean() && baseline.clean() && cleanup.clean() && (fs == null || fs.clean())
                && liveRows == produced && livePublishedYoung == produced && liveArchived == 0
                && (partitioned ? removedInDb == history : removedInDb == cleaner.removed.get())
                && historyArchived == expectedArchived
                && archiveRows == expectedArchived && otherRows == 0;
        if (!ok) {
            Fmt.line("FAILED a verification failed: warmup_clean=" + warmup.clean() + " baseline_clean=" + baseline.clean() + " cleanup_clean=" + cleanup.clean()
                    + " (see VERIFY)");
        }
        if (historyLeft > 0) {
            Fmt.line("NOTE the window ended with " + historyLeft + " history rows left (the cleanup ran throughout the window)");
        }

        double removingSeconds = cleaner.removingSeconds();
        long removed = partitioned ? removedInDb : cleaner.removed.get();
        String result = "RESULT scenario=retention db=" + kind + " strategy=" + o.string("strategy")
                + " duty_cycle=" + dutyCycle(o, strategy)
                + " history=" + history + " removed=" + removed
                + " cleanup_rows_per_s=" + (removingSeconds > 0 ? Fmt.rate(removed / removingSeconds) : "n/a")
                + " p99_ms_baseline=" + Fmt.two(baseline.p99Ms()) + " p99_ms_cleanup=" + Fmt.two(cleanup.p99Ms())
                + " p99_ratio=" + Fmt.two(baseline.p99Ms() / cleanup.p99Ms())
                + " drain_eps_baseline=" + Fmt.rate(baseline.deliveredEps())
                + " drain_eps_cleanup=" + Fmt.rate(cleanup.deliveredEps())
                + " drain_ratio=" + Fmt.two(cleanup.deliveredEps() / baseline.deliveredEps())
                + (partitioned ? " partitions_dropped=" + cleaner.partitions.get() + " longest_drop_ms="
                        + Fmt.two(cleaner.longestDropNanos / 1e6) + " longest_detach_ms="
                        + Fmt.two(cleaner.longestDetachNanos / 1e6) + " history_keys_left=" + keysLeft : "")
                + (fs == null ? "" : " fs_remove_bytes=" + dueBytes + " fs_remove_ms=" + Fmt.two(removal[0].nanos() / 1e6)
                        + " p99_ms_fs=" + Fmt.two(fs.p99Ms()) + " p99_ratio_fs=" + Fmt.two(baseline.p99Ms() / fs.p99Ms())
                        + " drain_eps_fs=" + Fmt.rate(fs.deliveredEps()) + " drain_ratio_fs="
                        + Fmt.two(fs.deliveredEps() / baseline.deliveredEps()))
                + " cpu_ms_per_1k=" + CpuClock.per1k(cleanup.cpuNanos(), cleanup.stats().produced());
        return new Outcome(result, ok);
    }
}
