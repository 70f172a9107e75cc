package dev.postbox.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commit-to-receive latency in microseconds. The producer calls {@link #committed} right after its commit
 * returned; the receiver calls {@link #received} on an event's first delivery. A relay can see a row as
 * soon as it is committed, a moment before the producer's {@code commit()} returns: such an event counts
 * with latency 0, whichever side comes first. Thread-safe.
 */
final class LatencyTracker {

    private static final long RECEIVED_FIRST = Long.MIN_VALUE;

    private final Map<Long, Long> pending = new ConcurrentHashMap<>();
    private final Histogram micros = new ConcurrentHistogram(3);

    void committed(long seq) {
        long now = System.nanoTime();
        Long before = pending.putIfAbsent(seq, now);
        if (before != null && before == RECEIVED_FIRST) {
            pending.remove(seq);
            micros.recordValue(0);
        }
    }

    void received(long seq) {
        long now = System.nanoTime();
        Long[] commit = new Long[1];
        pending.compute(seq, (k, v) -> {
            commit[0] = v;
            return v == null ? RECEIVED_FIRST : null;
        });
        if (commit[0] != null) {
            micros.recordValue(Math.max(0, (now - commit[0]) / 1000));
        }
    }

    Histogram histogram() {
        return micros;
    }

    /** {@code p50_ms=… p99_ms=…} and, with {@code p999}, {@code p999_ms=…}. */
    static String percentiles(Histogram h, boolean p999) {
        return "p50_ms=" + Fmt.ms(h.getValueAtPercentile(50)) + " p99_ms=" + Fmt.ms(h.getValueAtPercentile(99))
                + (p999 ? " p999_ms=" + Fmt.ms(h.getValueAtPercentile(99.9)) : "");
    }
}
