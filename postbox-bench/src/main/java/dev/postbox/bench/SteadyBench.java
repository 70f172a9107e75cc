package dev.postbox.bench;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code steady}: P closed-loop producers (a business row and one event per transaction) for S seconds
 * with one relay. Reports what was produced and delivered per second during the window, the backlog left
 * when producers stopped, and commit-to-receive latency of every event (the backlog is drained first). CPU
 * per 1,000 events covers the producing window and the drain of its backlog.
 */
final class SteadyBench implements Scenario {

    private static final long STALL_MS = 60_000;

    @Override
    public String name() {
        return "steady";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("producers", "4");
        d.put("seconds", "20");
        d.put("wakeup", "on");
        d.put("aggregates", "1000");
        d.put("batch", "500");
        d.put("sink", Sinks.NULL);
        return d;
    }

    @Override
    public void validate(Options o) {
        Sinks.validate(o.string("sink"));
        Wakeup.parse(o.string("wakeup"), o.string("db"));
        o.positiveInt("seconds");
        o.positiveInt("batch");
        new Aggregates(o.positiveInt("aggregates"), o.positiveInt("producers"));
    }

    @Override
    public boolean notifications(Options o) {
        return Wakeup.parse(o.string("wakeup"), o.string("db")).notifies();
    }

    @Override
    public int poolSize(Options o) {
        return o.positiveInt("producers");
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int producers = o.positiveInt("producers");
        LatencyTracker latency = new LatencyTracker();
        Receiver receiver = new Receiver(latency::received);
        RelayTimers timers = new RelayTimers();
        ClosedLoopProducers.Stats stats;
        long deliveredInWindow;
        long backlog;
        boolean complete;
        long cpuNanos;
        RelayGroup relays = RelayGroup.start(ctx, Sinks.create(o.string("sink"), receiver), 1, o.positiveInt("batch"),
                timers);
        try {
            Runnable hook = Wakeup.parse(o.string("wakeup"), o.string("db")).afterCommit(ctx.postbox);
            ClosedLoopProducers loop = new ClosedLoopProducers(new EventWriter(ctx.postbox, ctx.pool),
                    new Aggregates(o.positiveInt("aggregates"), producers), producers, seq -> {
                        latency.committed(seq);
                        hook.run();
                    });
            long started = System.nanoTime();
            CpuClock cpu = CpuClock.start();
            ProgressReporter reporter = ProgressReporter.start(receiver::distinct, timers, started);
            try {
                stats = loop.run(o.positiveInt("seconds"));
            } finally {
                reporter.stop();
            }
            deliveredInWindow = receiver.distinct();
            backlog = ctx.countOutbox("publish_status IN (0, 1, 3)");
            Fmt.line("WINDOW produced=" + stats.produced() + " delivered=" + deliveredInWindow + " backlog=" + backlog
                    + " failed_writes=" + stats.failed() + "; draining the backlog");
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(stats.produced(), STALL_MS);
            cpuNanos = cpu.elapsedNanos();
        } finally {
            relays.close();
        }
        Fmt.line("PROFILE " + timers.total() + " " + timers.failures());
        Histogram h = latency.histogram();
        Fmt.line("LATENCY commit_to_receive " + LatencyTracker.percentiles(h, true) + " max_ms=" + Fmt.ms(h.getMaxValue())
                + " samples=" + h.getTotalCount());
        Fmt.line("WRITES tx " + LatencyTracker.percentiles(stats.txMicros(), false) + " commit "
                + LatencyTracker.percentiles(stats.commitMicros(), false));
        Fmt.line("CHECK received=" + receiver.distinct() + " duplicates=" + receiver.duplicates()
                + " order_violations=" + receiver.orderViolations());
        boolean ok = complete && stats.failed() == 0 && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
        String result = "RESULT scenario=steady db=" + ctx.db.kind()
                + " produced_eps=" + Fmt.rate(stats.produced() / stats.seconds())
                + " delivered_eps=" + Fmt.rate(deliveredInWindow / stats.seconds())
                + " backlog=" + backlog + " " + LatencyTracker.percentiles(h, false)
                + " cpu_ms_per_1k=" + CpuClock.per1k(cpuNanos, stats.produced());
        return new Outcome(result, ok);
    }
}
