package dev.postbox.bench;

import dev.postbox.Postbox;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code write}: the cost of the outbox on the write path, in one run. At each concurrency of
 * {@code --producers} (a list), closed-loop producers commit for {@code --seconds} in each variant, every one
 * on emptied tables:
 * <ul>
 * <li>{@code plain}: the business transaction alone (one {@code bench_order} row, commit): the ceiling of
 * the others;</li>
 * <li>{@code event}: the same plus {@code outbox().write} of one event, notifications off;</li>
 * <li>{@code event_notify}: the same with {@code notifyOnWrite} on (PostgreSQL only: each such commit takes
 * the lock PostgreSQL serializes notifying commits with), through a second Postbox on the same pool.</li>
 * <li>{@code event_traced}: {@code event} with tracing on, through a third Postbox: {@code OpenTelemetryTracing} on
 * the OpenTelemetry SDK (always sampled, a batch span processor, an exporter that drops the spans), so every write
 * starts a {@code create} span and stores its context in the event's headers ({@code traced_vs_event}).</li>
 * </ul>
 * No relay runs unless {@code --relay on} (then one drains through the null sink during the event variants,
 * listening in {@code event_notify}). A short untimed warm-up of the {@code event} variant comes first, so
 * that the first measured variant does not pay for the JIT. The RESULT line carries every concurrency's
 * figures under keys {@code p<producers>_...}: tx/s per variant, p99 commit latency,
 * {@code event_vs_plain} and {@code notify_vs_off}. {@code --outbox partitioned} converts the outbox to the
 * time-partitioned variant first (daily partitions, a week ahead; every event also writes its key rows), to
 * weigh what the partitions strategy costs a writer against {@code --outbox plain}. {@code --kind message} writes a
 * message event ({@code messages().create}, seed 000's message table) instead of an outbox event: {@code event} and
 * {@code event_traced} only (no notification, no relay); traced, it also stores the create span's context in
 * {@code trace_context}.
 */
final class WriteBench implements Scenario {

    static final int MAX_PRODUCERS = 256;
    private static final long STALL_MS = 30_000;

    /** The write variants, in the order they run. */
    enum Variant {
        PLAIN("plain"), EVENT("event"), EVENT_NOTIFY("notify"), EVENT_TRACED("traced");

        /** The variant's name in RESULT keys. */
        final String key;

        Variant(String key) {
            this.key = key;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What one variant at one concurrency measured. */
    record Measured(double tps, long failed, String latencies, double commitP99Ms, String cpuPer1k) {
    }

    @Override
    public String name() {
        return "write";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("producers", "16,64");
        d.put("seconds", "10");
        d.put("warmup", "2");
        d.put("aggregates", "1000");
        d.put("relay", "off");
        d.put("outbox", "plain");
        d.put("kind", "outbox");
        return d;
    }

    @Override
    public void validate(Options o) {
        List<Integer> producers = o.positiveIntList("producers", MAX_PRODUCERS);
        o.positiveInt("seconds");
        o.nonNegativeInt("warmup");
        boolean relay = o.onOff("relay");
        partitioned(o);
        if (message(o) && relay) {
            throw new UsageException("option --relay on needs --kind outbox: message events are handled by a worker, not"
                    + " relayed");
        }
        new Aggregates(o.positiveInt("aggregates"), producers.stream().max(Integer::compare).orElseThrow());
    }

    /** Notifications off for {@link BenchContext#postbox}; {@code event_notify} builds its own Postbox. */
    @Override
    public boolean notifications(Options o) {
        return false;
    }

    @Override
    public int poolSize(Options o) {
        return o.positiveIntList("producers", MAX_PRODUCERS).stream().max(Integer::compare).orElseThrow();
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        boolean postgres = ctx.db.kind().equals("postgres");
        Postbox notifying = Postbox.builder(ctx.pool).source("bench").notifyOnWrite(true).build();
        TracedPostbox traced = TracedPostbox.open(ctx.pool);
        try {
            return run(ctx, o, ceiling, postgres, notifying, traced.postbox());
        } finally {
            traced.close();
            Fmt.line("TRACED spans_exported=" + traced.exported().spans() + " (create spans of event_traced, and send spans"
                    + " with --relay on; the exporter drops them)");
        }
    }

    private Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling, boolean postgres, Postbox notifying,
                        Postbox traced) throws Exception {
        int seconds = o.positiveInt("seconds");
        int aggregates = o.positiveInt("aggregates");
        boolean relay = o.onOff("relay");
        List<Integer> concurrencies = o.positiveIntList("producers", MAX_PRODUCERS);
        boolean partitioned = partitioned(o);
        boolean message = message(o);
        if (partitioned) {
            empty(ctx, false);
            ctx.postbox.outboxPartitions().convert(java.time.Duration.ofDays(1), java.time.Duration.ofDays(7));
            Fmt.line("OUTBOX partitioned: " + ctx.postbox.outboxPartitions().list().size() + " daily partitions");
        }
        if (o.nonNegativeInt("warmup") > 0) {
            int p = concurrencies.get(0);
            empty(ctx, partitioned);
            ClosedLoopProducers.Stats w = new ClosedLoopProducers(new EventWriter(ctx.postbox, ctx.pool, message),
                    new Aggregates(aggregates, p), p, seq -> { }).run(o.nonNegativeInt("warmup"));
            Fmt.line("WARMUP variant=event producers=" + p + " seconds=" + o.nonNegativeInt("warmup") + " tx=" + w.produced()
                    + " (not measured)");
        }
        StringBuilder result = new StringBuilder("RESULT scenario=write db=" + ctx.db.kind() + " producers="
                + String.join(",", concurrencies.stream().map(String::valueOf).toList()) + " seconds=" + seconds
                + " outbox=" + (partitioned ? "partitioned" : "plain") + " kind=" + (message ? "message" : "outbox")
                + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps()));
        boolean ok = true;
        long allTx = 0;
        long allCpu = 0;
        for (int p : concurrencies) {
            Map<Variant, Measured> m = new LinkedHashMap<>();
            for (Variant v : Variant.values()) {
                if (v == Variant.EVENT_NOTIFY && message) {
                    Fmt.line("SKIP variant=event_notify producers=" + p + ": a message event notifies no relay");
                    continue;
                }
                if (v == Variant.EVENT_NOTIFY && !postgres) {
                    Fmt.line("SKIP variant=event_notify producers=" + p + ": NOTIFY is PostgreSQL's; " + ctx.db.kind()
                            + " writes no notification");
                    continue;
                }
                empty(ctx, partitioned);
                EventWriter writer = switch (v) {
                    case PLAIN -> EventWriter.businessOnly(ctx.pool);
                    case EVENT -> new EventWriter(ctx.postbox, ctx.pool, message);
                    case EVENT_NOTIFY -> new EventWriter(notifying, ctx.pool);
                    case EVENT_TRACED -> new EventWriter(traced, ctx.pool, message);
                };
                Receiver receiver = new Receiver();
                RelayTimers timers = new RelayTimers();
                RelayGroup relays = relay && v != Variant.PLAIN
                        ? RelayGroup.start(v == Variant.EVENT_NOTIFY ? notifying : v == Variant.EVENT_TRACED ? traced
                                : ctx.postbox, v == Variant.EVENT_NOTIFY,
                                new NullSink(receiver), 1, 500, timers)
                        : null;
                ClosedLoopProducers.Stats s;
                long cpuNanos;
                try {
                    CpuClock cpu = CpuClock.start();
                    s = new ClosedLoopProducers(writer, new Aggregates(aggregates, p), p, seq -> { }).run(seconds);
                    cpuNanos = cpu.elapsedNanos();
                    if (relays != null) {
                        ok &= new Progress(receiver::distinct, timers, System.nanoTime()).awaitAtLeast(s.produced(), STALL_MS)
                                && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
                    }
                } finally {
                    if (relays != null) {
                        relays.close();
                    }
                }
                allTx += s.produced();
                allCpu += cpuNanos;
                ok &= s.failed() == 0;
                Measured r = new Measured(s.produced() / s.seconds(), s.failed(),
                        "tx " + LatencyTracker.percentiles(s.txMicros(), false) + " commit "
                                + LatencyTracker.percentiles(s.commitMicros(), false),
                        s.commitMicros().getValueAtPercentile(99) / 1000.0, CpuClock.per1k(cpuNanos, s.produced()));
                m.put(v, r);
                Fmt.line("WRITE producers=" + p + " variant=" + v.label() + " tps=" + Fmt.rate(r.tps()) + " tx=" + s.produced()
                        + " failed=" + s.failed() + " " + r.latencies() + " cpu_ms_per_1k=" + r.cpuPer1k()
                        + (relays != null ? " relay_delivered=" + receiver.distinct() : ""));
            }
            result.append(keys(p, m));
        }
        result.append(" cpu_ms_per_1k=").append(CpuClock.per1k(allCpu, allTx)).append(" relay=").append(relay ? "on" : "off");
        return new Outcome(result.toString(), ok);
    }

    /** The RESULT keys of concurrency {@code p}; {@code n/a} for a variant that did not run. */
    static String keys(int p, Map<Variant, Measured> m) {
        String k = " p" + p + "_";
        StringBuilder b = new StringBuilder();
        for (Variant v : Variant.values()) {
            Measured r = m.get(v);
            b.append(k).append(v.key).append("_tps=").append(r == null ? "n/a" : Fmt.rate(r.tps()));
        }
        for (Variant v : Variant.values()) {
            Measured r = m.get(v);
            b.append(k).append(v.key).append("_commit_p99_ms=").append(r == null ? "n/a" : Fmt.two(r.commitP99Ms()));
        }
        b.append(k).append("event_vs_plain=").append(ratio(m.get(Variant.EVENT), m.get(Variant.PLAIN)));
        b.append(k).append("notify_vs_off=").append(ratio(m.get(Variant.EVENT_NOTIFY), m.get(Variant.EVENT)));
        b.append(k).append("traced_vs_event=").append(ratio(m.get(Variant.EVENT_TRACED), m.get(Variant.EVENT)));
        return b.toString();
    }

    private static String ratio(Measured a, Measured b) {
        return a == null || b == null || b.tps() == 0 ? "n/a" : Fmt.two(a.tps() / b.tps());
    }

    /** {@code --outbox}: plain or partitioned. */
    private static boolean partitioned(Options o) {
        String outbox = o.string("outbox");
        return switch (outbox) {
            case "plain" -> false;
            case "partitioned" -> true;
            default -> throw new UsageException("option --outbox must be plain or partitioned (was '" + outbox + "')");
        };
    }

    /** {@code --kind}: outbox or message. */
    private static boolean message(Options o) {
        String kind = o.string("kind");
        return switch (kind) {
            case "outbox" -> false;
            case "message" -> true;
            default -> throw new UsageException("option --kind must be outbox or message (was '" + kind + "')");
        };
    }

    /**
     * Empties the business table and the outbox (with the partitioned outbox's key table), so that each variant
     * starts on the same (empty) tables.
     */
    private static void empty(BenchContext ctx, boolean partitioned) {
        ctx.db.execute("TRUNCATE TABLE " + BenchContext.ORDERS, "TRUNCATE TABLE " + ctx.outbox(),
                "TRUNCATE TABLE " + ctx.postbox.tables().message());
        if (partitioned) {
            ctx.db.execute("TRUNCATE TABLE " + ctx.outbox() + "_key");
        }
    }
}
