package dev.postbox.operations;

import dev.postbox.relay.LatencyBuckets;

/**
 * The latency of one minute of the overview: the {@code latency_hist} of its stats rows added bucket by bucket
 * ({@link LatencyBuckets}, where the bounds are defined and written) and their largest {@code latency_max_ms}. A
 * row whose histogram cannot be read (another number of buckets) adds only its maximum, so a mismatch shows as
 * missing percentiles, never as wrong ones. Not thread-safe (one per minute of one read).
 */
final class LatencyHistogram {

    private final long[] counts = new long[LatencyBuckets.COUNT];
    private long max = -1;

    /** Adds one stats row's histogram text and its maximum. */
    void add(String hist, long maxMillis) {
        max = Math.max(max, maxMillis);
        try {
            LatencyBuckets.add(counts, LatencyBuckets.parse(hist));
        } catch (IllegalArgumentException unreadable) {
            // counted by its maximum alone
        }
    }

    /** The largest latency seen, or null when no row was added. */
    Long max() {
        return max < 0 ? null : max;
    }

    /** The {@code q} quantile (0 &lt; q &lt;= 1) in milliseconds, or null without counts. */
    Long percentile(double q) {
        return LatencyBuckets.quantileMillis(counts, q, Math.max(max, 0));
    }
}
