package dev.postbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * {@code chaos}: separate processes on loopback, all on a private database server started for the run:
 * producer processes with their own clocks writing events of the same aggregates under a row lock (some
 * rolled back on purpose), relay processes publishing with postbox-http to a sink process that logs every
 * delivery durably. During the producing window the relays are killed with {@code kill -9} {@code --kills}
 * times and restarted, the database is crashed once and the sink is down once for {@code --outage-ms}.
 * Then the backlog drains and {@link ChaosHistory} checks the sink's log against the committed rows. The
 * run fails (exit 1) when a target of ordered mode is missed: lost 0, reordered 0, rolled-back delivered 0,
 * duplicates at most {@code kills × batch} (the in-flight batches of the killed relays).
 */
final class ChaosBench implements Command {

    private static final long PROGRESS_MS = 5_000;
    private static final long LOOP_MS = 50;

    @Override
    public String name() {
        return "chaos";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("kills", "20");
        d.put("producers", "2");
        d.put("relays", "2");
        d.put("aggregates", "50");
        d.put("seconds", "120");
        d.put("skew-ms", "5,-40");
        d.put("seed", "random");
        d.put("rate", "100");
        d.put("rollback-pct", "5");
        d.put("batch", "100");
        d.put("lease-ms", String.valueOf(dev.postbox.relay.RelayDefaults.LEASE.toMillis())); // the relay's own default
        d.put("outage-ms", "5000");
        d.put("db-down-ms", "2000");
        d.put("drain-timeout", "300");
        return d;
    }

    @Override
    public void validate(Options o) {
        if (BenchDatabase.kind(o.string("db")).equals("h2")) {
            throw new UsageException("chaos runs on --db postgres or mariadb (H2 in memory cannot be crashed and shared)");
        }
        o.nonNegativeInt("kills");
        o.positiveInt("producers");
        o.positiveInt("relays");
        o.positiveInt("aggregates");
        if (o.positiveInt("seconds") < 5) {
            throw new UsageException("option --seconds must be at least 5 (was " + o.positiveInt("seconds") + ")");
        }
        skews(o);
        seed(o);
        o.positiveInt("rate");
        if (o.nonNegativeInt("rollback-pct") > 100) {
            throw new UsageException("option --rollback-pct must be between 0 and 100 (was " + o.nonNegativeInt("rollback-pct") + ")");
        }
        o.positiveInt("batch");
        long minLease = dev.postbox.relay.RelayDefaults.MIN_LEASE.toMillis();
        if (o.positiveInt("lease-ms") < minLease) {
            throw new UsageException("option --lease-ms must be at least " + minLease + " (was " + o.positiveInt("lease-ms") + ")");
        }
        o.positiveInt("outage-ms");
        o.positiveInt("db-down-ms");
        o.positiveInt("drain-timeout");
    }

    /** The clock offset of each producer: {@code --skew-ms} values in turn. */
    static List<Long> skews(Options o) {
        String[] parts = o.string("skew-ms").split(",");
        List<Long> values = new ArrayList<>();
        for (String p : parts) {
            try {
                values.add(Long.parseLong(p.strip()));
            } catch (NumberFormatException e) {
                throw new UsageException("option --skew-ms must be a comma-separated list of milliseconds (was '"
                        + o.string("skew-ms") + "')");
            }
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < o.positiveInt("producers"); i++) {
            out.add(values.get(i % values.size()));
        }
        return out;
    }

    private static long seed(Options o) {
        String s = o.string("seed");
        if (s.equals("random")) {
            return 0;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new UsageException("option --seed must be a whole number or random (was '" + s + "')");
        }
    }

    @Override
    public Outcome run(Options o) throws Exception {
        long seed = o.string("seed").equals("random") ? ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE) : seed(o);
        DriverManager.setLoginTimeout(5);
        Path dir = Files.createTempDirectory("postbox-chaos-");
        Run run = new Run(o, seed, dir);
        Thread cleanupOnExit = new Thread(run::close, "chaos-cleanup-on-exit");
        Runtime.getRuntime().addShutdownHook(cleanupOnExit);
        try {
            return run.execute();
        } finally {
            run.close();
            Runtime.getRuntime().removeShutdownHook(cleanupOnExit);
        }
    }

    /** One run's resources and state. */
    private static final class Run {
        private final Options o;
        private final long seed;
        private final Path dir;
        private final long windowMs;
        private PrivateServer server;
        private BenchDatabase db;
        private ChaosCluster cluster;
        private ChaosQueries queries;
        private final List<KillToFlowing.Kill> kills = new ArrayList<>();
        private int dbCrashes;
        private int sinkOutages;
        private int unplannedRestarts;
        private long lastKillAtMs;
        private long producersDoneAtMs;
        /** When the backlog had drained (no row PENDING, PUBLISHING or FAILED), or -1. */
        private long drainedAtMs = -1;
        private boolean closed;

        Run(Options o, long seed, Path dir) {
            this.o = o;
            this.seed = seed;
            this.dir = dir;
            this.windowMs = o.positiveInt("seconds") * 1000L;
        }

        Outcome execute() throws Exception {
            server = PrivateServer.start(o.string("db"));
            db = server.newDatabase();
            Fmt.line("DB kind=" + db.kind() + " private_port=" + server.port + " name=" + db.name + " " + db.describe()
                    + " crash=\"" + server.crashMethod() + "\" core=" + Bench.revision() + " dir=" + dir);
            Ceiling.Result ceiling = Ceiling.measure(db);
            Fmt.line(ceiling.toString());
            install();
            cluster = new ChaosCluster(dir, db, o.positiveInt("relays"), o.positiveInt("batch"), o.positiveInt("lease-ms"));
            cluster.startSink();
            for (int i = 0; i < cluster.relayCount(); i++) {
                cluster.startRelay(i);
            }
            if (!cluster.awaitRelaysReady()) {
                throw new IllegalStateException("the relays did not start; see " + dir);
            }
            List<ChaosSchedule.Fault> faults = ChaosSchedule.draw(seed, windowMs, o.nonNegativeInt("kills"), cluster.relayCount());
            Fmt.line("SCHEDULE seed=" + seed + " kills=" + o.nonNegativeInt("kills") + " db_crash_at_ms="
                    + at(faults, ChaosSchedule.Kind.CRASH_DATABASE) + " sink_outage_at_ms=" + at(faults, ChaosSchedule.Kind.SINK_OUTAGE)
                    + " skews_ms=" + skews(o) + " sink=" + cluster.sinkUrl());
            Fmt.line("NOTE cpu_ms_per_1k = the CPU time of this JVM and of every producer, relay and sink process (a killed"
                    + " one as of just before its kill) from the producers' start until the drain, per 1,000 committed events;"
                    + " not the database server's");
            long start = System.currentTimeMillis();
            CpuClock cpu = CpuClock.start();
            long childCpuAtStart = cluster.childCpuNanos();
            cluster.startProducers(skews(o), o.positiveInt("aggregates"), o.positiveInt("seconds"), o.positiveInt("rate"),
                    o.nonNegativeInt("rollback-pct"), seed);
            faultLoop(faults, start);
            producersDoneAtMs = System.currentTimeMillis();
            cluster.producerReports().forEach(r -> Fmt.line("PRODUCER " + r));
            long drainMs = drain(start);
            cluster.stopRelaysAndSink();
            long cpuNanos = cpu.elapsedNanos();
            cpuNanos = cpuNanos < 0 ? -1 : cpuNanos + cluster.childCpuNanos() - childCpuAtStart;
            return verdict(ceiling, drainMs, cpuNanos);
        }

        private static long at(List<ChaosSchedule.Fault> faults, ChaosSchedule.Kind kind) {
            return faults.stream().filter(f -> f.kind() == kind).mapToLong(ChaosSchedule.Fault::atMs).findFirst().orElse(-1);
        }

        private void install() throws SQLException {
            try (HikariDataSource pool = ChaosRole.pool("chaos-setup", db.url(), db.user(), 1)) {
                Postbox postbox = Postbox.builder(pool).dialect(ChaosProducer.dialect(db.kind())).build();
                postbox.schema().install();
                queries = new ChaosQueries(db, postbox.tables().outbox());
            }
            db.execute("CREATE TABLE " + ChaosProducer.AGGREGATES + " (id VARCHAR(64) PRIMARY KEY, seq BIGINT NOT NULL)");
            try (Connection c = db.connect();
                 PreparedStatement ps = c.prepareStatement("INSERT INTO " + ChaosProducer.AGGREGATES + " (id, seq) VALUES (?, 0)")) {
                for (int a = 0; a < o.positiveInt("aggregates"); a++) {
                    ps.setString(1, "A" + a);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }

        /** Runs the faults at their times, keeps relays and sink up otherwise, until producers are done. */
        private void faultLoop(List<ChaosSchedule.Fault> faults, long start) throws Exception {
            int next = 0;
            long sinkUpAt = -1;
            long nextProgress = start + PROGRESS_MS;
            while (next < faults.size() || sinkUpAt >= 0 || cluster.producersRunning()) {
                long now = System.currentTimeMillis();
                // a kill waits until the relay's current incarnation is up: every kill hits a working relay
                if (next < faults.size() && now - start >= faults.get(next).atMs()
                        && (faults.get(next).kind() != ChaosSchedule.Kind.KILL_RELAY || cluster.relayReady(faults.get(next).relay()))) {
                    ChaosSchedule.Fault f = faults.get(next++);
                    switch (f.kind()) {
                        case KILL_RELAY -> killRelay(f.relay(), start);
                        case CRASH_DATABASE -> crashDatabase(start);
                        case SINK_OUTAGE -> {
                            cluster.killSink();
                            sinkOutages++;
                            sinkUpAt = System.currentTimeMillis() + o.positiveInt("outage-ms");
                            fault(start, "sink down (kill -9) for " + o.positiveInt("outage-ms") + " ms");
                        }
                    }
                }
                if (sinkUpAt >= 0 && System.currentTimeMillis() >= sinkUpAt) {
                    cluster.startSink();
                    sinkUpAt = -1;
                    fault(start, "sink up");
                } else if (sinkUpAt < 0 && !cluster.sinkAlive()) {
                    unplannedRestarts++;
                    fault(start, "WARN the sink exited by itself; restarted");
                    cluster.startSink();
                }
                for (int i = 0; i < cluster.relayCount(); i++) {
                    if (cluster.relayDied(i)) {
                        unplannedRestarts++;
                        fault(start, "WARN relay " + i + " exited by itself (code " + cluster.relayExitCode(i)
                                + "); restarted as " + cluster.startRelay(i));
                    }
                }
                if (System.currentTimeMillis() >= nextProgress) {
                    progress(start);
                    nextProgress += PROGRESS_MS;
                }
                Thread.sleep(LOOP_MS);
            }
        }

        private void killRelay(int i, long start) throws Exception {
            String killed = cluster.killRelay(i);
            long at = System.currentTimeMillis();
            lastKillAtMs = at;
            List<String> leased = queries.leasedBy(killed);
            kills.add(new KillToFlowing.Kill(at, killed, leased));
            String restarted = cluster.startRelay(i);
            fault(start, "kill -9 " + killed + " (leased " + (leased == null ? "?" : leased.size()) + "); restarting as "
                    + restarted);
        }

        private void crashDatabase(long start) throws Exception {
            fault(start, "database crash: " + server.crashMethod());
            server.crash();
            dbCrashes++;
            Thread.sleep(o.positiveInt("db-down-ms"));
            long t = System.nanoTime();
            server.restart();
            fault(start, "database up again (recovery and start took " + (System.nanoTime() - t) / 1_000_000 + " ms)");
        }

        private static void fault(long start, String what) {
            Fmt.line("FAULT t=" + Fmt.two((System.currentTimeMillis() - start) / 1000.0) + "s " + what);
        }

        private void progress(long start) {
            String counts;
            try {
                Map<Integer, Long> byStatus = queries.statusCounts();
                counts = "rows=" + byStatus.values().stream().mapToLong(Long::longValue).sum()
                        + " published=" + byStatus.getOrDefault(ChaosHistory.PUBLISHED, 0L)
                        + " pending=" + byStatus.getOrDefault(0, 0L) + " publishing=" + byStatus.getOrDefault(1, 0L)
                        + " failed=" + byStatus.getOrDefault(3, 0L) + " dead=" + byStatus.getOrDefault(ChaosHistory.DEAD, 0L);
            } catch (SQLException e) {
                counts = "db=down";
            }
            Fmt.line("PROGRESS t=" + Fmt.two((System.currentTimeMillis() - start) / 1000.0) + "s " + counts
                    + " kills=" + kills.size());
        }

        /**
         * Waits until no row is PENDING, PUBLISHING or FAILED; returns the ms from the last kill (the producers
         * may still have been writing then), or -1 after the timeout.
         */
        private long drain(long start) throws InterruptedException {
            long deadline = System.currentTimeMillis() + o.positiveInt("drain-timeout") * 1000L;
            long nextProgress = System.currentTimeMillis() + PROGRESS_MS;
            long from = lastKillAtMs > 0 ? lastKillAtMs : start;
            while (System.currentTimeMillis() < deadline) {
                try {
                    Map<Integer, Long> s = queries.statusCounts();
                    if (s.getOrDefault(0, 0L) + s.getOrDefault(1, 0L) + s.getOrDefault(3, 0L) == 0) {
                        long drained = System.currentTimeMillis();
                        drainedAtMs = drained;
                        Fmt.line("DRAINED t=" + Fmt.two((drained - start) / 1000.0) + "s, " + (drained - from)
                                + " ms after the last kill, " + (drained - producersDoneAtMs) + " ms after the producers stopped");
                        return drained - from;
                    }
                } catch (SQLException e) {
                    // reported by the progress line
                }
                if (System.currentTimeMillis() >= nextProgress) {
                    progress(start);
                    nextProgress += PROGRESS_MS;
                }
                Thread.sleep(200);
            }
            Fmt.line("TIMEOUT the backlog did not drain within " + o.positiveInt("drain-timeout") + " s");
            progress(start);
            return -1;
        }

        /** {@code cpuNanos}: this JVM's and every child process's CPU from the producers' start to the drained end. */
        private Outcome verdict(Ceiling.Result ceiling, long drainMs, long cpuNanos) throws Exception {
            Map<String, ChaosHistory.Row> rows = queries.committedRows();
            Map<String, Long> business = queries.businessSeqs();
            List<DeliveryLog.Delivery> log = DeliveryLog.read(cluster.deliveryLog());
            ChaosHistory.Verdict v = ChaosHistory.check(rows, business, log);
            v.examples().forEach(e -> Fmt.line("EXAMPLE " + e));
            long rolledBack = reported("rolled_back");
            long failedWrites = reported("failed");
            KillToFlowing flowing = KillToFlowing.of(kills, log);
            int killCount = kills.size();
            long duplicatesMax = (long) killCount * o.positiveInt("batch");
            Fmt.line("VERIFY committed=" + v.committed() + " deliveries=" + v.deliveries() + " mismatched=" + v.mismatched()
                    + " seq_gaps=" + v.seqGaps() + " failed_writes=" + failedWrites + " unplanned_restarts=" + unplannedRestarts
                    + " kills_measured=" + flowing.measured());
            boolean faultsDone = killCount == o.nonNegativeInt("kills") && dbCrashes == 1 && sinkOutages == 1;
            boolean ok = drainMs >= 0 && faultsDone && v.committed() > 0 && v.lost() == 0 && v.reordered() == 0
                    && v.rolledBackDelivered() == 0 && v.duplicates() <= duplicatesMax && v.mismatched() == 0
                    && v.seqGaps() == 0;
            String result = "RESULT scenario=chaos db=" + db.kind() + " committed=" + v.committed()
                    + " delivered=" + v.delivered() + " lost=" + v.lost() + " reordered=" + v.reordered()
                    + " reordered_aggregates=" + v.reorderedAggregates() + " duplicates=" + v.duplicates()
                    + " duplicates_max=" + duplicatesMax + " dead=" + v.dead() + " unfinished=" + v.unfinished()
                    + " rolled_back=" + rolledBack + " rolled_back_delivered=" + v.rolledBackDelivered()
                    + " kills=" + killCount + " db_crashes=" + dbCrashes + " sink_outages=" + sinkOutages
                    + " drain_ms=" + drainMs + " drain_after_producers_ms=" + (drainedAtMs < 0 ? -1 : drainedAtMs - producersDoneAtMs)
                    + " kill_to_flowing_p50_ms=" + flowing.p50() + " kill_to_flowing_max_ms=" + flowing.max()
                    + " produced_eps=" + Fmt.rate(v.committed() * 1000.0 / windowMs) + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps())
                    + " skews_ms=" + String.join(",", skews(o).stream().map(String::valueOf).toList()) + " seed=" + seed
                    + " cpu_ms_per_1k=" + CpuClock.per1k(cpuNanos, v.committed());
            return new Outcome(result, ok);
        }

        /** The sum of {@code key} over the producers' REPORT lines. */
        private long reported(String key) {
            long sum = 0;
            for (String r : cluster.producerReports()) {
                for (String kv : r.split(" ")) {
                    if (kv.startsWith(key + "=")) {
                        sum += Long.parseLong(kv.substring(key.length() + 1));
                    }
                }
            }
            return sum;
        }

        synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (cluster != null) {
                cluster.close();
            }
            if (server != null) {
                server.close();
            }
            try (Stream<Path> files = Files.walk(dir)) {
                if (!Boolean.getBoolean("postbox.bench.chaos.keep")) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            } catch (java.io.IOException e) {
                System.err.println("WARN could not delete " + dir + ": " + e);
            }
        }
    }
}
