package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * {@code drain}: preloads N pending events over A aggregates (optionally after H already-published rows),
 * starts R relays and measures the wall time until the receiver has every event (or gives up after
 * {@code --timeout} seconds, reporting what was published); then checks duplicates,
 * per-aggregate order and, with SQL, that all N rows are PUBLISHED. Commits per event come from the
 * server's counters over the drain.
 *
 * <p>The table is drained as a backlog really arrives, after a broker outage: just filled, its statistics
 * never refreshed (no ANALYZE; PostgreSQL's autovacuum may still analyze it on its own, which the VERIFY
 * line shows). {@code --analyze compare} then repeats the same drain on the same table, emptied and
 * refilled: once more without ANALYZE in the now warm JVM ({@code eps_warm}), then analyzed
 * ({@code eps_analyzed}, {@code vs_analyzed} of the first drain, {@code warm_vs_analyzed} of the warm one,
 * which isolates the statistics from the JVM's warm-up), so a relay whose speed depends on fresh
 * statistics shows within one run. With a broker sink, the drain is also repeated through the null sink
 * ({@code null_sink_eps}, {@code vs_null}), so the transport's cost is read within one run.
 *
 * <p>{@code --tracing on} drains a backlog as a traced application leaves it (every row's headers hold the sampled W3C
 * {@code traceparent} of a trace of its own, as the create span of {@link TracedPostbox} writes it) with relays
 * tracing through {@link TracedPostbox}: a {@code send} span per publisher call, linked to each event's creation
 * context, its context current and in the MDC around the call. Every drain of the run is then traced.
 * {@code --tracing compare} keeps the first drain untraced and, after it (the JVM warm), drains four
 * fresh backlogs of the same size: untraced, traced, traced, untraced, so that a drift over the run (the refills
 * leave dead rows behind) weighs on both alike ({@code eps_untraced}, {@code eps_traced}, the mean of each, and
 * {@code traced_vs_untraced}). A traced drain whose exporter saw no span, or whose send spans were started with
 * other than one link per event, fails the run.
 */
final class DrainBench implements Scenario {

    private static final long STALL_MS = 60_000;
    static final String ANALYZE_OFF = "off";
    static final String ANALYZE_COMPARE = "compare";
    /** The drains of {@code --tracing compare} after the first one, traced or not, in order. */
    private static final boolean[] COMPARE_TRACED = {false, true, true, false};

    /** {@code --tracing}: no drain traced, every drain traced, or untraced and traced drains compared. */
    enum Tracing {
        OFF, ON, COMPARE
    }

    @Override
    public String name() {
        return "drain";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("events", "200000");
        d.put("relays", "2");
        d.put("aggregates", "1000");
        d.put("batch", "500");
        d.put("sink", Sinks.NULL);
        d.put("history", "0");
        d.put("analyze", ANALYZE_OFF);
        d.put("tracing", "off");
        d.put("timeout", "600");
        return d;
    }

    @Override
    public void validate(Options o) {
        Sinks.validate(o.string("sink"));
        o.positiveInt("events");
        o.positiveInt("relays");
        o.positiveInt("aggregates");
        o.positiveInt("batch");
        o.nonNegativeInt("history");
        o.positiveInt("timeout");
        compare(o);
        tracing(o);
    }

    /** Whether {@code --analyze compare}; a usage error for anything but off or compare. */
    static boolean compare(Options o) {
        return switch (o.string("analyze")) {
            case ANALYZE_OFF -> false;
            case ANALYZE_COMPARE -> true;
            default -> throw new UsageException("option --analyze must be off (drain a table whose statistics were never"
                    + " refreshed) or compare (also drain it again after ANALYZE); was '" + o.string("analyze") + "'");
        };
    }

    /** {@code --tracing}: off, on or compare; a usage error for anything else. */
    static Tracing tracing(Options o) {
        return switch (o.string("tracing")) {
            case "off" -> Tracing.OFF;
            case "on" -> Tracing.ON;
            case "compare" -> Tracing.COMPARE;
            default -> throw new UsageException("option --tracing must be off, on (every drain traced: send spans linked"
                    + " to each event's creation context) or compare (untraced and traced drains of the same backlog);"
                    + " was '" + o.string("tracing") + "'");
        };
    }

    @Override
    public int poolSize(Options o) {
        return 2;
    }

    /**
     * One timed drain of {@code events} preloaded events through {@code sinkName}; {@code batches}: the relays' cycles;
     * {@code spans}: what the exporter saw of a traced drain, null for an untraced one.
     */
    private record Drained(Receiver receiver, boolean complete, double seconds, OptionalLong commits, long cpuNanos,
                           long batches, TracedPostbox.Exported spans) {

        double eps() {
            return receiver.distinct() / seconds;
        }

        /** Every event once and in order; traced, also spans exported and one link per event. */
        boolean clean(int events) {
            return complete && receiver.distinct() == events && receiver.duplicates() == 0 && receiver.orderViolations() == 0
                    && (spans == null || spans.spans() > 0 && spans.links() == events);
        }

        String cpuPer1k() {
            return CpuClock.per1k(cpuNanos, receiver.distinct());
        }
    }

    /** The same drain with relays tracing through a {@link TracedPostbox} of its own when {@code traced}. */
    private Drained drain(BenchContext ctx, Options o, String sinkName, int events, boolean traced) throws Exception {
        Receiver receiver = new Receiver();
        RelayTimers timers = new RelayTimers();
        ctx.evictIdleConnections();
        TracedPostbox tracing = traced ? TracedPostbox.open(ctx.pool) : null;
        Postbox postbox = traced ? tracing.postbox() : ctx.postbox;
        boolean complete;
        long started;
        long finished;
        long cpuNanos;
        OptionalLong commitDelta;
        try {
            Publisher sink = Sinks.create(sinkName, receiver); // a broker sink starts its broker here, untimed
            CommitCounter commits = new CommitCounter(ctx.db);
            commits.start();
            started = System.nanoTime();
            CpuClock cpu = CpuClock.start();
            RelayGroup relays = RelayGroup.start(postbox, ctx.notifications, sink, o.positiveInt("relays"),
                    o.positiveInt("batch"), timers);
            try {
                complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(events, STALL_MS,
                        o.positiveInt("timeout") * 1000L);
                finished = System.nanoTime();
                cpuNanos = cpu.elapsedNanos();
            } finally {
                relays.close();
            }
            commitDelta = commits.stop();
        } finally {
            if (tracing != null) {
                tracing.close(); // exports the spans still queued, untimed
            }
        }
        RelayTimers.Snapshot cycles = timers.total();
        Fmt.line("PROFILE sink=" + sinkName + (traced ? " traced" : "") + " " + cycles + " " + timers.failures());
        Drained d = new Drained(receiver, complete, (finished - started) / 1e9, commitDelta, cpuNanos, cycles.cycles(),
                traced ? tracing.exported() : null);
        if (traced) {
            TracedPostbox.Exported s = d.spans();
            Fmt.line("TRACED spans_exported=" + s.spans() + " batches=" + d.batches() + " links=" + s.links() + " of "
                    + receiver.distinct() + " events links_per_span=" + perSpan(s.links(), s.spans())
                    + " links_kept_per_span=" + perSpan(s.linksKept(), s.spans())
                    + (s.spans() > 0 && s.links() == events ? "" : " FAILED: expected spans and one link per event")
                    + " (send spans, one per publisher call: an ordered batch goes out in waves of one event per aggregate"
                    + " unless the publisher gives order lanes; dropped by the exporter; the SDK keeps at most 128 links"
                    + " per span by default)");
        }
        return d;
    }

    /** Deletes the drained events (history stays) and writes them again, pending, as a fresh backlog. */
    private static void refill(BenchContext ctx, int events, int aggregates, boolean traced) throws Exception {
        ctx.db.execute("DELETE FROM " + ctx.outbox() + " WHERE event_no LIKE '" + EventWriter.EVENT_NO_PREFIX + "%'");
        Preload.pending(ctx, events, aggregates, traced);
    }

    private static String perSpan(long n, long spans) {
        return spans == 0 ? "n/a" : Fmt.two((double) n / spans);
    }

    /** RESULT keys, and whether the drains behind them were clean. */
    private record Keys(String keys, boolean ok) {
    }

    /**
     * {@code --tracing compare} after the first drain: {@link #COMPARE_TRACED}'s drains, each on a fresh backlog, the
     * traced ones added to {@code traced}.
     */
    private Keys compareTracing(BenchContext ctx, Options o, String sinkName, int events, int aggregates,
                                List<Drained> traced) throws Exception {
        List<Drained> off = new ArrayList<>();
        List<Drained> on = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < COMPARE_TRACED.length; i++) {
            boolean t = COMPARE_TRACED[i];
            refill(ctx, events, aggregates, t);
            Drained d = drain(ctx, o, sinkName, events, t);
            ok &= d.clean(events) && ctx.countOutbox("publish_status <> 2") == 0;
            (t ? on : off).add(d);
            Fmt.line("TRACING round=" + (i + 1) + "/" + COMPARE_TRACED.length + " tracing=" + (t ? "on" : "off")
                    + " eps=" + Fmt.rate(d.eps()) + " published=" + d.receiver().distinct()
                    + " duplicates=" + d.receiver().duplicates() + " order_violations=" + d.receiver().orderViolations() + " cpu_ms_per_1k=" + d.cpuPer1k());
        }
        traced.addAll(on);
        double untracedEps = meanEps(off);
        double tracedEps = meanEps(on);
        return new Keys(" eps_untraced=" + Fmt.rate(untracedEps) + " eps_traced=" + Fmt.rate(tracedEps)
                + " traced_vs_untraced=" + Fmt.two(tracedEps / untracedEps)
                + " eps_untraced_each=" + each(off) + " eps_traced_each=" + each(on)
                + " cpu_ms_per_1k_untraced=" + cpuPer1k(off) + " cpu_ms_per_1k_traced=" + cpuPer1k(on), ok);
    }

    private static double meanEps(List<Drained> runs) {
        return runs.stream().mapToDouble(Drained::eps).average().orElse(Double.NaN);
    }

    private static String each(List<Drained> runs) {
        return runs.stream().map(d -> Fmt.rate(d.eps())).collect(Collectors.joining(","));
    }

    /** CPU per 1,000 events over {@code runs} together. */
    private static String cpuPer1k(List<Drained> runs) {
        long nanos = 0;
        long events = 0;
        for (Drained d : runs) {
            if (d.cpuNanos() < 0) {
                return "n/a";
            }
            nanos += d.cpuNanos();
            events += d.receiver().distinct();
        }
        return CpuClock.per1k(nanos, events);
    }

    /** The RESULT keys of the run's traced drains together: what was delivered, and what the exporter saw of it. */
    private static String tracedKeys(Tracing tracing, List<Drained> traced) {
        long events = 0;
        long duplicates = 0;
        long violations = 0;
        long batches = 0;
        long spans = 0;
        long links = 0;
        long kept = 0;
        for (Drained d : traced) {
            events += d.receiver().distinct();
            duplicates += d.receiver().duplicates();
            violations += d.receiver().orderViolations();
            batches += d.batches();
            spans += d.spans().spans();
            links += d.spans().links();
            kept += d.spans().linksKept();
        }
        return " tracing=" + tracing.name().toLowerCase(Locale.ROOT) + " traced_drains=" + traced.size()
                + " traced_events=" + events + " spans_exported=" + spans + " traced_batches=" + batches
                + " links=" + links + " links_per_span=" + perSpan(links, spans)
                + " links_kept_per_span=" + perSpan(kept, spans)
                + " duplicates_traced=" + duplicates + " order_violations_traced=" + violations;
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int events = o.positiveInt("events");
        int aggregates = o.positiveInt("aggregates");
        int history = o.nonNegativeInt("history");
        boolean compare = compare(o);
        Tracing tracing = tracing(o);
        boolean tracedRun = tracing == Tracing.ON; // every drain traced; compare traces only its own rounds
        List<Drained> traced = new ArrayList<>();
        String sinkName = o.string("sink");
        History.insert(ctx, history, aggregates);
        Preload.pending(ctx, events, aggregates, tracedRun);
        Fmt.line("ANALYZE none: the relays start on a table just filled, statistics never refreshed");

        Drained run = drain(ctx, o, sinkName, events, tracedRun);
        if (tracedRun) {
            traced.add(run);
        }
        Receiver receiver = run.receiver();
        OptionalLong commitDelta = run.commits();

        long publishedRows = ctx.countOutbox("publish_status = 2") - history;
        long unfinishedRows = ctx.countOutbox("publish_status <> 2");
        Fmt.line("VERIFY published_rows=" + publishedRows + " of " + events + " other_status_rows=" + unfinishedRows
                + " commits=" + (commitDelta.isPresent() ? commitDelta.getAsLong() : "n/a")
                + " analyzed_so_far=" + ctx.db.analyzedSoFar(ctx.outbox()));

        // a broker sink is compared with the null sink drained in the same run, on the same table
        String reference = "";
        boolean referenceOk = true;
        if (!Sinks.NULL.equals(sinkName)) {
            refill(ctx, events, aggregates, tracedRun);
            Drained nullRun = drain(ctx, o, Sinks.NULL, events, tracedRun);
            if (tracedRun) {
                traced.add(nullRun);
            }
            Fmt.line("REFERENCE sink=null eps=" + Fmt.rate(nullRun.eps()) + " published=" + nullRun.receiver().distinct()
                    + " (the same drain through the null sink, after the " + sinkName + " one, no ANALYZE)");
            referenceOk = nullRun.clean(events);
            reference = " null_sink_eps=" + Fmt.rate(nullRun.eps()) + " vs_null=" + Fmt.two(run.eps() / nullRun.eps());
        }

        // after the drain, on the same table: what the SQL alone could do (H2 has no SKIP LOCKED to compare with)
        boolean sql = !ctx.db.kind().equals("h2");
        if (sql && ctx.countOutbox("publish_status <> 2") > 0) {
            // a drain that stalled or timed out left events behind: the SQL loop claims the lowest ids, so it
            // would work through them too instead of its own rows
            ctx.db.execute("DELETE FROM " + ctx.outbox() + " WHERE publish_status <> 2");
            Fmt.line("CLEANUP deleted the events the drain left unpublished, so that sql_limit measures its own rows only");
        }
        String sqlLimit = "n/a";
        int limitRows = Math.min(events, 50_000);
        if (sql) {
            SqlLimit.Result limit = SqlLimit.measure(ctx, limitRows, o.positiveInt("batch"), false);
            Fmt.line(limit.toString());
            sqlLimit = Fmt.rate(limit.eps());
        }

        // untraced and traced drains of the same backlog, in the now warm JVM
        String tracingCompared = "";
        boolean tracingOk = true;
        if (tracing == Tracing.COMPARE) {
            Keys compared = compareTracing(ctx, o, sinkName, events, aggregates, traced);
            tracingCompared = compared.keys();
            tracingOk = compared.ok();
        }

        // the same drain once more, after an ANALYZE of the refilled table: what fresh statistics are worth
        String analyzed = "";
        boolean analyzedOk = true;
        if (compare) {
            // first once more without ANALYZE in this now warm JVM: the first drain also paid for the JIT and
            // the pools' warm-up, which the analyzed one after it does not; warm_vs_analyzed isolates the
            // statistics
            refill(ctx, events, aggregates, tracedRun);
            Drained warm = drain(ctx, o, sinkName, events, tracedRun);
            analyzedOk = warm.clean(events) && ctx.countOutbox("publish_status <> 2") == 0;
            Fmt.line("WARM eps=" + Fmt.rate(warm.eps()) + " published=" + warm.receiver().distinct()
                    + " cpu_ms_per_1k=" + warm.cpuPer1k() + " (the same drain again without ANALYZE, warm JVM)");
            refill(ctx, events, aggregates, tracedRun);
            ctx.db.analyze(ctx.outbox());
            Fmt.line("ANALYZE done after the refill: the relays start on fresh statistics");
            Drained again = drain(ctx, o, sinkName, events, tracedRun);
            if (tracedRun) {
                traced.add(warm);
                traced.add(again);
            }
            analyzedOk &= again.clean(events) && ctx.countOutbox("publish_status <> 2") == 0;
            Fmt.line("ANALYZED eps=" + Fmt.rate(again.eps()) + " published=" + again.receiver().distinct()
                    + " duplicates=" + again.receiver().duplicates() + " order_violations=" + again.receiver().orderViolations()
                    + " cpu_ms_per_1k=" + again.cpuPer1k());
            analyzed = " eps_analyzed=" + Fmt.rate(again.eps()) + " vs_analyzed=" + Fmt.two(run.eps() / again.eps())
                    + " cpu_ms_per_1k_analyzed=" + again.cpuPer1k() + " eps_warm=" + Fmt.rate(warm.eps())
                    + " warm_vs_analyzed=" + Fmt.two(warm.eps() / again.eps());
            if (sql) {
                SqlLimit.Result limit = SqlLimit.measure(ctx, limitRows, o.positiveInt("batch"), true);
                Fmt.line(limit.toString());
                analyzed += " sql_limit_eps_analyzed=" + Fmt.rate(limit.eps());
            }
        }

        long published = receiver.distinct();
        boolean ok = run.clean(events) && publishedRows == events && unfinishedRows == 0 && referenceOk && analyzedOk
                && tracingOk;
        String result = "RESULT scenario=drain db=" + ctx.db.kind() + " sink=" + sinkName
                + " events=" + events + " published=" + published
                + " duplicates=" + receiver.duplicates() + " order_violations=" + receiver.orderViolations()
                + " eps=" + Fmt.rate(run.eps()) + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps())
                + " commits_per_event=" + (commitDelta.isPresent() ? Fmt.four((double) commitDelta.getAsLong() / events) : "n/a")
                + " sql_limit_eps=" + sqlLimit + " cpu_ms_per_1k=" + run.cpuPer1k() + analyzed + reference
                + (history > 0 ? " history=" + history : "")
                + (tracing == Tracing.OFF ? "" : tracingCompared + tracedKeys(tracing, traced));
        return new Outcome(result, ok);
    }
}
