package dev.postbox.bench;

import dev.postbox.spi.Publisher;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

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
 */
final class DrainBench implements Scenario {

    private static final long STALL_MS = 60_000;
    static final String ANALYZE_OFF = "off";
    static final String ANALYZE_COMPARE = "compare";

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

    @Override
    public int poolSize(Options o) {
        return 2;
    }

    /** One timed drain of {@code events} preloaded events through {@code sinkName}. */
    private record Drained(Receiver receiver, boolean complete, double seconds, OptionalLong commits, long cpuNanos) {

        double eps() {
            return receiver.distinct() / seconds;
        }

        boolean clean(int events) {
            return complete && receiver.distinct() == events && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
        }

        String cpuPer1k() {
            return CpuClock.per1k(cpuNanos, receiver.distinct());
        }
    }

    private Drained drain(BenchContext ctx, Options o, String sinkName, int events) throws Exception {
        Receiver receiver = new Receiver();
        RelayTimers timers = new RelayTimers();
        ctx.evictIdleConnections();
        Publisher sink = Sinks.create(sinkName, receiver); // a broker sink starts its broker here, untimed
        CommitCounter commits = new CommitCounter(ctx.db);
        commits.start();
        long started = System.nanoTime();
        CpuClock cpu = CpuClock.start();
        boolean complete;
        long finished;
        long cpuNanos;
        RelayGroup relays = RelayGroup.start(ctx, sink, o.positiveInt("relays"), o.positiveInt("batch"), timers);
        try {
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(events, STALL_MS,
                    o.positiveInt("timeout") * 1000L);
            finished = System.nanoTime();
            cpuNanos = cpu.elapsedNanos();
        } finally {
            relays.close();
        }
        OptionalLong commitDelta = commits.stop();
        Fmt.line("PROFILE sink=" + sinkName + " " + timers.total() + " " + timers.failures());
        return new Drained(receiver, complete, (finished - started) / 1e9, commitDelta, cpuNanos);
    }

    /** Deletes the drained events (history stays) and writes them again, pending, as a fresh backlog. */
    private static void refill(BenchContext ctx, int events, int aggregates) throws Exception {
        ctx.db.execute("DELETE FROM " + ctx.outbox() + " WHERE event_no LIKE '" + EventWriter.EVENT_NO_PREFIX + "%'");
        Preload.pending(ctx, events, aggregates);
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int events = o.positiveInt("events");
        int aggregates = o.positiveInt("aggregates");
        int history = o.nonNegativeInt("history");
        boolean compare = compare(o);
        String sinkName = o.string("sink");
        History.insert(ctx, history, aggregates);
        Preload.pending(ctx, events, aggregates);
        Fmt.line("ANALYZE none: the relays start on a table just filled, statistics never refreshed");

        Drained run = drain(ctx, o, sinkName, events);
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
            refill(ctx, events, aggregates);
            Drained nullRun = drain(ctx, o, Sinks.NULL, events);
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

        // the same drain once more, after an ANALYZE of the refilled table: what fresh statistics are worth
        String analyzed = "";
        boolean analyzedOk = true;
        if (compare) {
            // first once more without ANALYZE in this now warm JVM: the first drain also paid for the JIT and
            // the pools' warm-up, which the analyzed one after it does not; warm_vs_analyzed isolates the
            // statistics
            refill(ctx, events, aggregates);
            Drained warm = drain(ctx, o, sinkName, events);
            analyzedOk = warm.clean(events) && ctx.countOutbox("publish_status <> 2") == 0;
            Fmt.line("WARM eps=" + Fmt.rate(warm.eps()) + " published=" + warm.receiver().distinct()
                    + " cpu_ms_per_1k=" + warm.cpuPer1k() + " (the same drain again without ANALYZE, warm JVM)");
            refill(ctx, events, aggregates);
            ctx.db.analyze(ctx.outbox());
            Fmt.line("ANALYZE done after the refill: the relays start on fresh statistics");
            Drained again = drain(ctx, o, sinkName, events);
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
        boolean ok = run.clean(events) && publishedRows == events && unfinishedRows == 0 && referenceOk && analyzedOk;
        String result = "RESULT scenario=drain db=" + ctx.db.kind() + " sink=" + sinkName
                + " events=" + events + " published=" + published
                + " duplicates=" + receiver.duplicates() + " order_violations=" + receiver.orderViolations()
                + " eps=" + Fmt.rate(run.eps()) + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps())
                + " commits_per_event=" + (commitDelta.isPresent() ? Fmt.four((double) commitDelta.getAsLong() / events) : "n/a")
                + " sql_limit_eps=" + sqlLimit + " cpu_ms_per_1k=" + run.cpuPer1k() + analyzed + reference
                + (history > 0 ? " history=" + history : "");
        return new Outcome(result, ok);
    }
}
