package dev.postbox.bench;

import dev.postbox.relay.RelayDefaults;
import dev.postbox.server.config.ConfigLoader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tenants}: seed 001 §6.2's tenant isolation through postbox-server. One database ({@link TenantTables}) with
 * two tenants' table sets, relayed by one {@link dev.postbox.server.RelayServer} in this JVM as one source with
 * {@code tenants: {a: ta_, b: tb_}} (a bulkhead each: relay and pool) to the local NATS JetStream ({@link NatsCapture},
 * a fresh stream per phase). Tenant B's open-loop producer writes {@code --rate} events a second for
 * {@code --seconds}; its latency is commit-to-arrival at the bench's NATS subscriber. Phases, each on a freshly
 * started server ({@link TenantPhase}):
 * <ol>
 *   <li>warm-up ({@code --warmup} seconds of B, A with at most {@value #WARMUP_BACKLOG} events; not measured), so that
 *       neither measured phase pays for this JVM's JIT alone;</li>
 *   <li>baseline, the {@code CEILING}: A's table empty, B alone;</li>
 *   <li>backlog: A preloaded with {@code --backlog} pending events, the same B producer while A drains. A's drain rate
 *       over the window and what was left of its backlog at the window's end are reported; a backlog drained before
 *       the window ended is said (WARN, {@code a_drained_before_end=true}, {@code a_overlap_pct} under 100);</li>
 *   <li>shared (unless {@code --shared off}), the contrast: the same, but B's events written into A's table set, as
 *       if the tenants shared one outbox and one relay: B waits behind A's backlog ({@code b_p99_ms_shared},
 *       {@code isolation}: shared p99 / backlog p99).</li>
 * </ol>
 * Ratios are baseline/backlog: 1.0 = B unchanged by A's backlog, lower = slower. Every phase waits for every event of
 * both tenants (A's whole backlog) and every row PUBLISHED; a lost event, an unpublished row or an event of an
 * aggregate arriving before an earlier one fails the run (exit 1).
 */
final class TenantsBench implements Command {

    /** The warm-up's tenant A backlog at most: enough for the JIT to compile the drain's path. */
    static final int WARMUP_BACKLOG = 20_000;

    @Override
    public String name() {
        return "tenants";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("backlog", "500000");
        d.put("rate", "200");
        d.put("seconds", "20");
        d.put("warmup", "5");
        d.put("producers", "4");
        d.put("aggregates", "1000");
        d.put("batch", String.valueOf(RelayDefaults.BATCH_SIZE));
        d.put("max-in-flight", String.valueOf(ConfigLoader.DEFAULT_MAX_IN_FLIGHT)); // the server's own default
        d.put("timeout", "600");
        d.put("shared", "on");
        return d;
    }

    @Override
    public void validate(Options o) {
        if (BenchDatabase.kind(o.string("db")).equals("h2")) {
            throw new UsageException("tenants runs on --db postgres or mariadb (postbox-server connects to it by URL)");
        }
        o.positiveInt("backlog");
        o.positiveInt("rate");
        o.positiveInt("seconds");
        o.nonNegativeInt("warmup");
        if (!o.string("shared").equals("on") && !o.string("shared").equals("off")) {
            throw new UsageException("--shared must be on or off (was '" + o.string("shared") + "')");
        }
        if ((long) o.positiveInt("rate") * o.positiveInt("seconds") > 10_000_000L) {
            throw new UsageException("--rate x --seconds must be at most 10000000 events (was "
                    + (long) o.positiveInt("rate") * o.positiveInt("seconds") + ")");
        }
        new Aggregates(o.positiveInt("aggregates"), o.positiveInt("producers"));
        if (o.positiveInt("batch") > RelayDefaults.MAX_BATCH_SIZE) {
            throw new UsageException("option --batch must be at most " + RelayDefaults.MAX_BATCH_SIZE + " (was "
                    + o.positiveInt("batch") + ")");
        }
        if (o.positiveInt("max-in-flight") > 100_000) {
            throw new UsageException("option --max-in-flight must be at most 100000 (was " + o.positiveInt("max-in-flight") + ")");
        }
        o.positiveInt("timeout");
    }

    @Override
    public Outcome run(Options o) throws Exception {
        Path dir = Files.createTempDirectory("postbox-bench-tenants-");
        try (TenantTables tables = TenantTables.open(o.string("db"), o.positiveInt("producers"));
             NatsCapture nats = new NatsCapture()) {
            return execute(o, tables, nats, dir);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static Outcome execute(Options o, TenantTables tables, NatsCapture nats, Path dir) throws Exception {
        tables.describe().forEach(Fmt::line);
        int batch = o.positiveInt("batch");
        Path config = tables.writeConfig(dir, NatsCapture.URL, nats.subjectPrefix(), batch, o.positiveInt("max-in-flight"));
        new ConfigLoader().load(config); // a bad file fails here, before any phase
        Fmt.line("DESTINATION nats " + NatsCapture.URL + " subject=" + nats.subject()
                + " (a fresh file-storage stream per phase; the bench reads every message back)");
        for (String line : Files.readAllLines(config)) {
            Fmt.line("CONFIG " + line);
        }
        Fmt.line("NOTE latency = tenant B's commit (the producer's commit() returned) to the event's first arrival at the"
                + " bench's NATS subscriber on the stream's subject (the server's JetStream ack and PUBLISHED mark come"
                + " after it; consumer_max_pending: the most deliveries of both tenants queued in that subscriber); "
                + (tables.ctx.db.kind().equals("postgres") ? "B's writes NOTIFY, the server's relays LISTEN"
                : "the server's relays find B's events by polling (no NOTIFY on " + tables.ctx.db.kind() + ")"));
        Fmt.line("NOTE tenant A can have at most batch x in-flight-batches = " + batch * RelayDefaults.IN_FLIGHT_BATCHES
                + " sends in flight at the shared destination (max-in-flight " + o.positiveInt("max-in-flight")
                + "); not_sent counts events held back there");
        Fmt.line("NOTE " + CpuClock.EXPLAINED + "; here over the window (B's producer running), per 1,000 events of both"
                + " tenants arrived in it (the baseline's are B's alone at --rate: mostly what idle relays and the JVM cost"
                + " a second, not comparable with the backlog's)");

        int rate = o.positiveInt("rate");
        int backlog = o.positiveInt("backlog");
        long timeout = o.positiveInt("timeout") * 1000L;
        int producers = o.positiveInt("producers");
        int aggregates = o.positiveInt("aggregates");
        int warmup = o.nonNegativeInt("warmup");
        boolean ok = true;
        long lost = 0;
        long duplicates = 0;
        long violations = 0;
        if (warmup > 0) {
            TenantPhase.Result w = TenantPhase.run("warmup", tables, nats, config, Math.min(backlog, WARMUP_BACKLOG),
                    new TenantPhase.Load(rate, warmup, producers, aggregates, timeout));
            Fmt.line("WARMUP b_p99_ms=" + Fmt.two(w.p99Ms()) + " a_drain_eps=" + Fmt.rate(w.aDrainEps()) + " (not measured)");
            ok = w.ok();
            lost += w.lost();
            duplicates += w.duplicates();
            violations += w.orderViolations();
        }
        TenantPhase.Load load = new TenantPhase.Load(rate, o.positiveInt("seconds"), producers, aggregates, timeout);
        TenantPhase.Result base = TenantPhase.run("baseline", tables, nats, config, 0, load);
        Fmt.line("CEILING baseline (tenant B alone, A's table empty) b_p50_ms=" + Fmt.two(base.p50Ms()) + " b_p99_ms="
                + Fmt.two(base.p99Ms()) + " b_max_ms=" + Fmt.two(base.maxMs()) + " cpu_ms_per_1k=" + base.cpuPer1k());
        TenantPhase.Result with = TenantPhase.run("backlog", tables, nats, config, backlog, load);
        Fmt.line("BACKLOG b_p50_ms=" + Fmt.two(with.p50Ms()) + " b_p99_ms=" + Fmt.two(with.p99Ms()) + " b_max_ms="
                + Fmt.two(with.maxMs()) + " p99_ratio=" + ratio(base.p99Ms(), with.p99Ms()) + " p50_ratio="
                + ratio(base.p50Ms(), with.p50Ms()) + " a_drain_eps=" + Fmt.rate(with.aDrainEps()) + " a_left_at_end="
                + with.aLeftAtEnd() + " cpu_ms_per_1k=" + with.cpuPer1k());
        List<TenantPhase.Result> phases = new java.util.ArrayList<>(List.of(base, with));
        TenantPhase.Result shared = null;
        if (o.string("shared").equals("on")) {
            shared = TenantPhase.run("shared", tables, nats, config, backlog, load, true);
            Fmt.line("SHARED (no bulkhead: B in A's table set) b_p50_ms=" + Fmt.two(shared.p50Ms()) + " b_p99_ms="
                    + Fmt.two(shared.p99Ms()) + " b_max_ms=" + Fmt.two(shared.maxMs()) + " vs bulkheads p99 "
                    + Fmt.two(with.p99Ms()) + " ms");
            phases.add(shared);
        }
        for (TenantPhase.Result r : phases) {
            ok &= r.ok();
            lost += r.lost();
            duplicates += r.duplicates();
            violations += r.orderViolations();
        }
        if (violations > 0) {
            Fmt.line("WARN " + violations + " events arrived after a later event of their aggregate: the run fails");
        }
        String result = "RESULT scenario=tenants db=" + tables.ctx.db.kind() + " backlog=" + backlog + " rate=" + rate
                + " seconds=" + load.seconds() + " b_events=" + load.bEvents()
                + " b_p50_ms_baseline=" + Fmt.two(base.p50Ms()) + " b_p99_ms_baseline=" + Fmt.two(base.p99Ms())
                + " b_max_ms_baseline=" + Fmt.two(base.maxMs())
                + " b_p50_ms_backlog=" + Fmt.two(with.p50Ms()) + " b_p99_ms_backlog=" + Fmt.two(with.p99Ms())
                + " b_max_ms_backlog=" + Fmt.two(with.maxMs())
                + " p50_ratio=" + ratio(base.p50Ms(), with.p50Ms()) + " p99_ratio=" + ratio(base.p99Ms(), with.p99Ms())
                + " max_ratio=" + ratio(base.maxMs(), with.maxMs())
                + " a_drain_eps=" + Fmt.rate(with.aDrainEps()) + " a_left_at_start=" + with.aLeftAtStart()
                + " a_left_at_end=" + with.aLeftAtEnd() + " a_drained_before_end=" + with.aDrainedBeforeEnd()
                + " a_overlap_pct=" + Fmt.two(with.aOverlapPct()) + " a_drain_total_eps=" + Fmt.rate(with.aTotalEps())
                + " max_in_flight=" + o.positiveInt("max-in-flight") + " not_sent=" + with.notSent()
                + " consumer_max_pending=" + with.consumerMaxPending()
                + " cpu_ms_per_1k=" + with.cpuPer1k() + " cpu_ms_per_1k_baseline=" + base.cpuPer1k()
                + (shared == null ? "" : " b_p50_ms_shared=" + Fmt.two(shared.p50Ms()) + " b_p99_ms_shared="
                        + Fmt.two(shared.p99Ms()) + " b_max_ms_shared=" + Fmt.two(shared.maxMs()) + " isolation="
                        + ratio(shared.p99Ms(), with.p99Ms()))
                + " lost=" + lost + " duplicates=" + duplicates + " order_violations=" + violations;
        return new Outcome(result, ok && lost == 0 && violations == 0);
    }

    /** {@code baseline / measured}, 2 decimals: 1.00 = unchanged, lower = slower; n/a when either is 0. */
    static String ratio(double baseline, double measured) {
        return baseline <= 0 || measured <= 0 ? "n/a" : Fmt.two(baseline / measured);
    }
}
