package dev.postbox.bench;

import dev.postbox.server.RelayServer;
import dev.postbox.server.config.ConfigLoader;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One phase of {@code scripts/bench tenants}: both outboxes emptied, tenant A's filled with {@code backlog} pending
 * events ({@link Preload}), then postbox-server started from the bench's file ({@link RelayServer} in this JVM, as
 * {@link DrainRelays#server} starts it) and, once it runs, tenant B's open-loop producer at {@code rate} for
 * {@code seconds} (the window). B's latency is commit-to-arrival at the bench's NATS subscriber ({@link LatencyTracker}).
 * After the window the phase waits until every event of both tenants arrived and every row is PUBLISHED (A's whole
 * backlog, so that a loss of A shows too), then closes the server and verifies. Seqs: B's events {@code E-0..}, A's
 * {@code E-<s>..} with {@code s} above B's last, so {@link NatsCapture} hands each to its tenant's {@link Receiver}.
 */
final class TenantPhase {

    private static final long STALL_MS = 60_000;
    /** Deliveries queued in the bench's own subscription from which B's arrival times are said to include that wait. */
    static final long PENDING_WARN = 1_000;

    /** The load of a phase: B's rate, window, producer threads, the aggregates, and the phase's time limit. */
    record Load(int rate, int seconds, int producers, int aggregates, long timeoutMillis) {

        long bEvents() {
            return (long) rate * seconds;
        }
    }

    /**
     * What one phase measured. A's figures are over the window (from the producer's launch to its last commit, or to
     * A's last event if that came first): {@code aLeftAtStart}/{@code aLeftAtEnd} not yet arrived at its ends,
     * {@code aOverlapPct} the share of the window A still had a backlog, {@code aDrainedSeconds} from the server's
     * start to A's last arrival (NaN: none or never).
     */
    record Result(String name, int backlog, OpenLoopProducer.Stats producer, Histogram latency, long aLeftAtStart,
                  long aLeftAtEnd, double aDrainEps, double aOverlapPct, double aDrainedSeconds, long cpuNanos,
                  long windowEvents, long notSent, long consumerMaxPending, long lost, long duplicates, long orderViolations, boolean ok) {

        boolean aDrainedBeforeEnd() {
            return backlog > 0 && aLeftAtEnd == 0;
        }

        double aTotalEps() {
            return Double.isNaN(aDrainedSeconds) ? 0 : backlog / aDrainedSeconds;
        }

        String cpuPer1k() {
            return CpuClock.per1k(cpuNanos, windowEvents);
        }

        /** B's p50/p99/max in milliseconds. */
        double p50Ms() {
            return latency.getValueAtPercentile(50) / 1000.0;
        }

        double p99Ms() {
            return latency.getValueAtPercentile(99) / 1000.0;
        }

        double maxMs() {
            return latency.getMaxValue() / 1000.0;
        }
    }

    private TenantPhase() {
    }

    static Result run(String name, TenantTables t, NatsCapture nats, Path config, int backlog, Load load)
            throws Exception {
        return run(name, t, nats, config, backlog, load, false);
    }

    /**
     * {@code shared}: no bulkhead, the contrast: B's events are written into A's table set, behind A's backlog, as
     * if both tenants shared one outbox and one relay.
     */
    static Result run(String name, TenantTables t, NatsCapture nats, Path config, int backlog, Load load,
                      boolean shared) throws Exception {
        t.truncate();
        long bEvents = load.bEvents();
        long aFirstSeq = Math.max(Math.max(bEvents, backlog), 1);
        Fmt.line("PHASE " + name + ": tenant A " + (backlog == 0 ? "empty" : backlog + " pending") + ", tenant B at "
                + load.rate() + "/s for " + load.seconds() + " s (" + bEvents + " events)");
        if (backlog > 0) {
            Preload.pending(t.ctx, t.a.postbox(), backlog, load.aggregates(), aFirstSeq);
        }
        LatencyTracker latency = new LatencyTracker();
        Timetable timetable = new Timetable(load.rate());
        Histogram fromSchedule = new ConcurrentHistogram(3); // B's writes slowed down too (the database is shared)
        Receiver b = new Receiver(seq -> {
            latency.received(seq);
            fromSchedule.recordValue(Math.max(0, (System.nanoTime() - timetable.due(seq)) / 1000));
        });
        AtomicLong aArrived = new AtomicLong();
        AtomicLong aDoneAt = new AtomicLong(); // System.nanoTime() of A's last first-arrival
        Receiver a = new Receiver(seq -> {
            if (aArrived.incrementAndGet() == backlog) {
                aDoneAt.set(System.nanoTime());
            }
        });
        nats.begin(List.of(b, a), aFirstSeq);
        OpenLoopProducer.Stats stats;
        long serverStarted;
        long launch;
        long end;
        long aAtLaunch;
        long aAtEnd;
        long cpuNanos;
        long notSent;
        long maxPending;
        boolean complete;
        long streamMessages;
        try {
            try (RelayServer server = RelayServer.start(new ConfigLoader().load(config));
                 Reporter reporter = Reporter.start(name, nats, b::distinct, a::distinct, backlog)) {
                serverStarted = System.nanoTime();
                OpenLoopProducer producer = new OpenLoopProducer(new EventWriter((shared ? t.a : t.b).postbox(), t.ctx.pool),
                        new Aggregates(load.aggregates(), load.producers()), load.producers(), timetable,
                        bEvents, latency::committed);
                aAtLaunch = aArrived.get();
                launch = System.nanoTime();
                CpuClock cpu = CpuClock.start();
                stats = producer.run();
                end = System.nanoTime();
                aAtEnd = aArrived.get();
                cpuNanos = cpu.elapsedNanos();
                maxPending = reporter.maxPending();
                long deadline = serverStarted + load.timeoutMillis() * 1_000_000L;
                complete = await(name + " tenant B's events", b::distinct, stats.sent(), deadline)
                        && await(name + " tenant A's backlog", a::distinct, backlog, deadline)
                        && await(name + " every row PUBLISHED", () -> -(t.a.unpublished() + t.b.unpublished()), 0, deadline);
                notSent = notSent(server.scrape());
            }
            streamMessages = nats.streamMessages();
        } finally {
            nats.end();
        }

        boolean drainedInWindow = backlog > 0 && aAtEnd >= backlog;
        while (drainedInWindow && aDoneAt.get() == 0) {
            Thread.onSpinWait(); // the arrival that counted A's last event sets its time a moment later
        }
        long doneAt = aDoneAt.get();
        long windowEnd = drainedInWindow ? Math.min(doneAt, end) : end;
        long aInWindow = (drainedInWindow ? backlog : aAtEnd) - aAtLaunch;
        double aEps = backlog == 0 || windowEnd - launch <= 0 ? 0 : aInWindow / ((windowEnd - launch) / 1e9);
        double overlap = backlog == 0 ? 0 : 100.0 * Math.max(0, windowEnd - launch) / (end - launch);
        double drainedSeconds = doneAt == 0 ? Double.NaN : (doneAt - serverStarted) / 1e9;
        long aLeftAtEnd = backlog - aAtEnd;

        Fmt.line("PRODUCER " + name + " sent=" + stats.sent() + " failed=" + stats.failed()
                + " max_lag_behind_schedule_ms=" + Fmt.two(stats.maxLagMs()));
        Histogram h = latency.histogram();
        Fmt.line("LATENCY " + name + " b commit_to_arrival " + LatencyTracker.percentiles(h, true) + " max_ms="
                + Fmt.ms(h.getMaxValue()) + " samples=" + h.getTotalCount() + " consumer_max_pending=" + maxPending
                + "; from_schedule p99_ms=" + Fmt.ms(fromSchedule.getValueAtPercentile(99)) + " max_ms="
                + Fmt.ms(fromSchedule.getMaxValue()) + " (from each event's due time: B's own write included)");
        if (maxPending >= PENDING_WARN) {
            Fmt.line("WARN " + name + ": the bench's NATS subscription had up to " + maxPending + " deliveries queued in the"
                    + " window: B's arrival times include waiting behind them in this JVM, not only the server's time");
        }
        if (backlog > 0) {
            Fmt.line("TENANT_A " + name + " backlog=" + backlog + " left_at_start=" + (backlog - aAtLaunch)
                    + " left_at_end=" + aLeftAtEnd + " drain_eps=" + Fmt.rate(aEps) + " overlap_pct=" + Fmt.two(overlap)
                    + " drained_s=" + (Double.isNaN(drainedSeconds) ? "n/a" : Fmt.two(drainedSeconds))
                    + " (drain_eps over the window while A had a backlog; drained_s from the server's start)");
            if (drainedInWindow) {
                Fmt.line("WARN " + name + ": tenant A's backlog was drained " + Fmt.two((doneAt - launch) / 1e9) + " s into the "
                        + Fmt.two((end - launch) / 1e9) + " s window: B's events after that met no backlog (raise --backlog"
                        + " or lower --seconds for a window A outlasts)");
            }
        }
        Verified v = verify(name, t, b, a, stats.sent(), backlog, streamMessages, notSent, shared);
        boolean ok = complete && v.ok() && stats.failed() == 0;
        return new Result(name, backlog, stats, h, backlog - aAtLaunch, aLeftAtEnd, aEps, overlap,
                drainedSeconds, cpuNanos, stats.sent() + aInWindow, notSent, maxPending, v.lost(),
                b.duplicates() + a.duplicates(), b.orderViolations() + a.orderViolations(), ok);
    }

    private record Verified(long lost, boolean ok) {
    }

    /** Every row PUBLISHED, every event arrived and in the stream, each aggregate's first arrivals in order. */
    private static Verified verify(String name, TenantTables t, Receiver b, Receiver a, long bSent, int backlog,
                                   long streamMessages, long notSent, boolean shared) {
        long bPublished = t.b.published();
        long bUnpublished = t.b.unpublished();
        long aPublished = t.a.published();
        long aUnpublished = t.a.unpublished();
        long lost = Math.max(0, Math.max(bSent - b.distinct(), bUnpublished))
                + Math.max(0, Math.max(backlog - a.distinct(), aUnpublished)); // unpublished rows of either set count
        boolean ok = lost == 0 && bPublished == (shared ? 0 : bSent) && aPublished == backlog + (shared ? bSent : 0)
                && streamMessages >= bSent + backlog
                && b.orderViolations() == 0 && a.orderViolations() == 0;
        Fmt.line("VERIFY " + name + " b: published_rows=" + bPublished + " unpublished_rows=" + bUnpublished + " received="
                + b.distinct() + " duplicates=" + b.duplicates() + " order_violations=" + b.orderViolations()
                + " retried_rows=" + t.b.retried() + "; a: published_rows=" + aPublished + " unpublished_rows=" + aUnpublished
                + " received=" + a.distinct() + " duplicates=" + a.duplicates() + " order_violations=" + a.orderViolations()
                + " retried_rows=" + t.a.retried() + "; stream_messages=" + streamMessages + " not_sent=" + notSent
                + " ok=" + ok);
        return new Verified(lost, ok);
    }

    /** Waits until {@code count} reaches {@code target}; false (with a line saying why) after a stall or the deadline. */
    private static boolean await(String what, LongSupplier count, long target, long deadline) throws InterruptedException {
        long last = count.getAsLong();
        long lastChange = System.nanoTime();
        while (last < target) {
            Thread.sleep(50);
            long now = System.nanoTime();
            long c = count.getAsLong();
            if (c != last) {
                last = c;
                lastChange = now;
            } else if (now - lastChange > STALL_MS * 1_000_000L) {
                Fmt.line("STALL " + what + ": no progress for " + STALL_MS + " ms at " + c + " of " + target);
                return false;
            }
            if (now - deadline > 0 && c < target) {
                Fmt.line("TIMEOUT " + what + ": at " + c + " of " + target + " (--timeout)");
                return false;
            }
        }
        return true;
    }

    /** Events the destination held back (max-in-flight reached, paused or down), from the server's meters. */
    static long notSent(String prometheus) {
        double sum = 0;
        for (String line : prometheus.split("\n")) {
            if (line.startsWith("postbox_destination_sends_total{") && line.contains("outcome=\"not_sent\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) sum;
    }

    /**
     * A PROGRESS line every {@value Progress#EVERY_MS} ms on its own thread, until closed; meanwhile, every
     * {@value #SAMPLE_MS} ms, the most deliveries the bench's NATS subscription had queued at once
     * ({@link NatsCapture#pendingDeliveries()}): B's arrival times include waiting behind A's deliveries there.
     */
    private static final class Reporter implements AutoCloseable {
        private static final long SAMPLE_MS = 10;
        private final AtomicLong maxPending = new AtomicLong();
        private Thread thread;

        static Reporter start(String name, NatsCapture nats, LongSupplier b, LongSupplier a, int backlog) {
            Reporter r = new Reporter();
            long started = System.nanoTime();
            r.thread = new Thread(() -> {
                long lastA = a.getAsLong();
                long lastAt = started;
                long next = started + Progress.EVERY_MS * 1_000_000L;
                try {
                    while (true) {
                        Thread.sleep(SAMPLE_MS);
                        r.maxPending.accumulateAndGet(nats.pendingDeliveries(), Math::max);
                        long now = System.nanoTime();
                        if (now - next < 0) {
                            continue;
                        }
                        long aNow = a.getAsLong();
                        Fmt.line("PROGRESS " + name + " t=" + Fmt.two((now - started) / 1e9) + "s b_received=" + b.getAsLong()
                                + " a_received=" + aNow + " a_left=" + (backlog - aNow) + " a_window_eps="
                                + Fmt.rate((aNow - lastA) / ((now - lastAt) / 1e9)) + " consumer_max_pending=" + r.maxPending.get());
                        lastA = aNow;
                        lastAt = now;
                        next = now + Progress.EVERY_MS * 1_000_000L;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-tenants-progress");
            r.thread.setDaemon(true);
            r.thread.start();
            return r;
        }

        /** The most deliveries queued in the bench's subscription at one sample. */
        long maxPending() {
            return maxPending.get();
        }

        @Override
        public void close() {
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
