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
 * server's counters over the drain. With a broker sink, the same drain is then repeated through the null
 * sink on the same table ({@code null_sink_eps}, {@code vs_null}), so the transport's cost is read within
 * one run.
 */
final class DrainBench implements Scenario {

    private static final long STALL_MS = 60_000;

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
    }

    @Override
    public int poolSize(Options o) {
        return 2;
    }

    /** One timed drain of {@code events} preloaded events through {@code sinkName}. */
    private record Drained(Receiver receiver, boolean complete, double seconds, OptionalLong commits) {
    }

    private static double published(Receiver receiver, double seconds) {
        return receiver.distinct() / seconds;
    }

    private Drained drain(BenchContext ctx, Options o, String sinkName, int events) throws Exception {
        Receiver receiver = new Receiver();
        RelayTimers timers = new RelayTimers();
        ctx.evictIdleConnections();
        Publisher sink = Sinks.create(sinkName, receiver); // a broker sink starts its broker here, untimed
        CommitCounter commits = new CommitCounter(ctx.db);
        commits.start();
        long started = System.nanoTime();
        boolean complete;
        long finished;
        RelayGroup relays = RelayGroup.start(ctx, sink, o.positiveInt("relays"), o.positiveInt("batch"), timers);
        try {
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(events, STALL_MS,
                    o.positiveInt("timeout") * 1000L);
            finished = System.nanoTime();
        } finally {
            relays.close();
        }
        OptionalLong commitDelta = commits.stop();
        Fmt.line("PROFILE sink=" + sinkName + " " + timers.total() + " " + timers.failures());
        return new Drained(receiver, complete, (finished - started) / 1e9, commitDelta);
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int events = o.positiveInt("events");
        int aggregates = o.positiveInt("aggregates");
        int history = o.nonNegativeInt("history");
        History.insert(ctx, history, aggregates);
        Preload.pending(ctx, events, aggregates);
        ctx.db.analyze(ctx.outbox());

        Drained run = drain(ctx, o, o.string("sink"), events);
        Receiver receiver = run.receiver();
        boolean complete = run.complete();
        double seconds = run.seconds();
        OptionalLong commitDelta = run.commits();

        long publishedRows = ctx.countOutbox("publish_status = 2") - history;
        long unfinishedRows = ctx.countOutbox("publish_status <> 2");
        Fmt.line("VERIFY published_rows=" + publishedRows + " of " + events + " other_status_rows=" + unfinishedRows
                + " commits=" + (commitDelta.isPresent() ? commitDelta.getAsLong() : "n/a"));

        // a broker sink is compared with the null sink drained in the same run, on the same table
        String reference = "";
        boolean referenceOk = true;
        if (!Sinks.NULL.equals(o.string("sink"))) {
            ctx.db.execute("DELETE FROM " + ctx.outbox() + " WHERE event_no LIKE '" + EventWriter.EVENT_NO_PREFIX + "%'");
            Preload.pending(ctx, events, aggregates);
            ctx.db.analyze(ctx.outbox());
            Drained nullRun = drain(ctx, o, Sinks.NULL, events);
            double nullEps = nullRun.receiver().distinct() / nullRun.seconds();
            Fmt.line("REFERENCE sink=null eps=" + Fmt.rate(nullEps) + " published=" + nullRun.receiver().distinct()
                    + " (the same drain through the null sink, after the " + o.string("sink") + " one)");
            referenceOk = nullRun.complete() && nullRun.receiver().distinct() == events
                    && nullRun.receiver().duplicates() == 0 && nullRun.receiver().orderViolations() == 0;
            reference = " null_sink_eps=" + Fmt.rate(nullEps) + " vs_null=" + Fmt.two(published(receiver, seconds) / nullEps);
        }

        // after the drain, on the same table: what the SQL alone could do (H2 has no SKIP LOCKED to compare with)
        String sqlLimit = "n/a";
        if (!ctx.db.kind().equals("h2")) {
            SqlLimit.Result limit = SqlLimit.measure(ctx, Math.min(events, 50_000), o.positiveInt("batch"));
            Fmt.line(limit.toString());
            sqlLimit = Fmt.rate(limit.eps());
        }

        long published = receiver.distinct();
        boolean ok = complete && published == events && publishedRows == events && unfinishedRows == 0
                && receiver.duplicates() == 0 && receiver.orderViolations() == 0 && referenceOk;
        String result = "RESULT scenario=drain db=" + ctx.db.kind() + " sink=" + o.string("sink")
                + " events=" + events + " published=" + published
                + " duplicates=" + receiver.duplicates() + " order_violations=" + receiver.orderViolations()
                + " eps=" + Fmt.rate(published / seconds) + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps())
                + " commits_per_event=" + (commitDelta.isPresent() ? Fmt.four((double) commitDelta.getAsLong() / events) : "n/a")
                + " sql_limit_eps=" + sqlLimit + reference
                + (history > 0 ? " history=" + history : "");
        return new Outcome(result, ok);
    }
}
