package dev.postbox.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code latency}: an open-loop producer commits events at a fixed rate, one per transaction with a
 * business row, and one relay delivers them; the receiver records commit-to-receive latency. The same
 * deliveries measured from each event's scheduled send time are printed too: that figure also contains
 * any producer stall. CPU per 1,000 events covers the producing window and the last deliveries.
 */
final class LatencyBench implements Scenario {

    private static final long STALL_MS = 30_000;

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("rate", "1000");
        d.put("seconds", "30");
        d.put("wakeup", "on");
        d.put("producers", "4");
        d.put("aggregates", "1000");
        d.put("batch", "500");
        d.put("sink", Sinks.NULL);
        return d;
    }

    @Override
    public void validate(Options o) {
        Sinks.validate(o.string("sink"));
        Wakeup.parse(o.string("wakeup"), o.string("db"));
        o.positiveInt("rate");
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
        int rate = o.positiveInt("rate");
        int producers = o.positiveInt("producers");
        LatencyTracker latency = new LatencyTracker();
        Histogram fromSchedule = new ConcurrentHistogram(3);
        Timetable timetable = new Timetable(rate);
        Receiver receiver = new Receiver(seq -> {
            latency.received(seq);
            fromSchedule.recordValue(Math.max(0, (System.nanoTime() - timetable.due(seq)) / 1000));
        });
        RelayTimers timers = new RelayTimers();
        OpenLoopProducer.Stats stats;
        boolean complete;
        long cpuNanos;
        RelayGroup relays = RelayGroup.start(ctx, Sinks.create(o.string("sink"), receiver), 1, o.positiveInt("batch"),
                timers);
        try {
            Runnable hook = Wakeup.parse(o.string("wakeup"), o.string("db")).afterCommit(ctx.postbox);
            OpenLoopProducer producer = new OpenLoopProducer(new EventWriter(ctx.postbox, ctx.pool),
                    new Aggregates(o.positiveInt("aggregates"), producers), producers, timetable,
                    (long) rate * o.positiveInt("seconds"), seq -> {
                        latency.committed(seq);
                        hook.run();
                    });
            long started = System.nanoTime();
            CpuClock cpu = CpuClock.start();
            ProgressReporter reporter = ProgressReporter.start(receiver::distinct, timers, started);
            try {
                stats = producer.run();
            } finally {
                reporter.stop();
            }
            complete = new Progress(receiver::distinct, timers, started).awaitAtLeast(stats.sent(), STALL_MS);
            cpuNanos = cpu.elapsedNanos();
        } finally {
            relays.close();
        }
        Fmt.line("PRODUCER sent=" + stats.sent() + " failed=" + stats.failed() + " max_lag_behind_schedule_ms="
                + Fmt.two(stats.maxLagMs()));
        Fmt.line("PROFILE " + timers.total() + " " + timers.failures());
        Fmt.line("LATENCY from_schedule " + LatencyTracker.percentiles(fromSchedule, true)
                + " max_ms=" + Fmt.ms(fromSchedule.getMaxValue()));
        Histogram h = latency.histogram();
        Fmt.line("LATENCY commit_to_receive " + LatencyTracker.percentiles(h, true) + " max_ms=" + Fmt.ms(h.getMaxValue())
                + " samples=" + h.getTotalCount());
        boolean ok = complete && stats.failed() == 0 && receiver.duplicates() == 0 && receiver.orderViolations() == 0;
        if (receiver.duplicates() > 0 || receiver.orderViolations() > 0) {
            Fmt.line("CHECK duplicates=" + receiver.duplicates() + " order_violations=" + receiver.orderViolations());
        }
        String result = "RESULT scenario=latency db=" + ctx.db.kind() + " rate=" + rate + " sent=" + stats.sent()
                + " received=" + receiver.distinct() + " " + LatencyTracker.percentiles(h, true)
                + " cpu_ms_per_1k=" + CpuClock.per1k(cpuNanos, stats.sent());
        return new Outcome(result, ok);
    }
}
