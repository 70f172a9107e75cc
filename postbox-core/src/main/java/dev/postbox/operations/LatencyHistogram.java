package dev.postbox.operations;

import java.util.Arrays;
import java.util.List;

/**
 * The create-to-success latency histogram of {@code biz_relay_stats.latency_hist} as the console reads it: counts
 * per bucket, comma-separated, for the fixed upper bounds {@link #BOUNDS_MS} and a last, open bucket above them.
 * The relays and workers write the histogram with the same bounds (the one place they are defined for the reading
 * side; a histogram with another number of buckets is ignored, so a mismatch shows as missing percentiles, never
 * as wrong ones). A percentile is the upper bound of the bucket that holds it, never above the window's exact
 * maximum; one in the open bucket is that maximum.
 */
final class LatencyHistogram {

    /** Upper bounds of the buckets in milliseconds (inclusive); one more bucket holds everything above. */
    static final List<Long> BOUNDS_MS = List.of(5L, 10L, 25L, 50L, 100L, 250L, 500L, 1_000L, 2_500L, 5_000L, 10_000L,
            30_000L, 60_000L);
    static final int BUCKETS = BOUNDS_MS.size() + 1;

    private final long[] counts = new long[BUCKETS];
    private long max = -1;

    /** Adds one stats row's histogram text (null or malformed: only its maximum counts) and its maximum. */
    void add(String hist, long maxMillis) {
        max = Math.max(max, maxMillis);
        long[] parsed = parse(hist);
        if (parsed != null) {
            for (int i = 0; i < BUCKETS; i++) {
                counts[i] += parsed[i];
            }
        }
    }

    /** The counts of {@code hist}, or null when it is not {@link #BUCKETS} non-negative numbers. */
    static long[] parse(String hist) {
        if (hist == null || hist.isBlank()) {
            return null;
        }
        String[] parts = hist.split(",", -1);
        if (parts.length != BUCKETS) {
            return null;
        }
        long[] out = new long[BUCKETS];
        try {
            for (int i = 0; i < BUCKETS; i++) {
                out[i] = Long.parseLong(parts[i].trim());
                if (out[i] < 0) {
                    return null;
                }
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return out;
    }

    long total() {
        return Arrays.stream(counts).sum();
    }

    /** The largest latency seen, or null when no row was added. */
    Long max() {
        return max < 0 ? null : max;
    }

    /** The {@code p}-quantile (0 < p <= 1) in milliseconds, or null without counts. */
    Long percentile(double p) {
        long total = total();
        if (total == 0) {
            return null;
        }
        long rank = (long) Math.ceil(p * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                long bound = i < BOUNDS_MS.size() ? BOUNDS_MS.get(i) : Long.MAX_VALUE;
                return max >= 0 ? Math.min(bound, max) : (bound == Long.MAX_VALUE ? null : bound);
            }
        }
        return max();
    }
}
