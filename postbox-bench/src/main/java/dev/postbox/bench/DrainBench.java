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

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int events = o.positiveInt("events");
        int aggregates = o.positiveInt("aggregates");
        int history = o.nonNegativeInt("history");
        History.insert(ctx, history, aggregates);
        Preload.pending(ctx, events, aggregates);
        ctx.db.analyze(ctx.outbox());

        Receiver receiver = new Receiver();
        RelayTimers timers = new RelayTimers();
        ctx.evictIdleConnections();
        Publisher sink = Sinks.create(o.string("sink"), receiver); // a broker sink starts its broker here, untimed
        CommitCounter commits = new CommitCounter(ctx.db);
        commits.start();
        long started = System.nanoTime();
        boolean complete;
        long finished;
        RelayGroup relays = RelayGroup.start(ctx, sink,
                o.positiveInt("relays"), o.positiveInt("batch"), timers);
        try {
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(events, STALL_MS,
                    o.positiveInt("timeout") * 1000L);
            finished = System.nanoTime();
        } finally {
            relays.close();
        }
        OptionalLong commitDelta = commits.stop();
        double seconds = (finished - started) / 1e9;
        Fmt.line("PROFILE " + timers.total() + " " + timers.failures());

        long publishedRows = ctx.countOutbox("publish_status = 2") - history;
        long unfinishedRows = ctx.countOutbox("publish_status <> 2");
        Fmt.line("VERIFY published_rows=" + publishedRows + " of " + events + " other_status_rows=" + unfinishedRows
                + " commits=" + (commitDelta.isPresent() ? commitDelta.getAsLong() : "n/a"));

        // after the drain, on the same table: what the SQL alone could do (H2 has no SKIP LOCKED to compare with)
        String sqlLimit = "n/a";
        if (!ctx.db.kind().equals("h2")) {
            SqlLimit.Result limit = SqlLimit.measure(ctx, Math.min(events, 50_000), o.positiveInt("batch"));
            Fmt.line(limit.toString());
            sqlLimit = Fmt.rate(limit.eps());
        }

        long published = receiver.distinct();
        boolean ok = complete && published == events && publishedRows == events && unfinishedRows == 0
                && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
        String result = "RESULT scenario=drain db=" + ctx.db.kind() + " sink=" + o.string("sink")
                + " events=" + events + " published=" + published
                + " duplicates=" + receiver.duplicates() + " order_violations=" + receiver.orderViolations()
                + " eps=" + Fmt.rate(published / seconds) + " ceiling_insert_eps=" + Fmt.rate(ceiling.eps())
                + " commits_per_event=" + (commitDelta.isPresent() ? Fmt.four((double) commitDelta.getAsLong() / events) : "n/a")
                + " sql_limit_eps=" + sqlLimit
                + (history > 0 ? " history=" + history : "");
        return new Outcome(result, ok);
    }
}
