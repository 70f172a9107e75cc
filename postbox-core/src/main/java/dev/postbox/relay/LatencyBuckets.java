package dev.postbox.relay;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed latency buckets of {@code biz_relay_stats.latency_hist}, the one place their bounds are defined
 * (relays and message workers write with them, the operations console reads with them).
 * <p>
 * Every relay and worker adds one stats row per heartbeat window. Its {@code latency_hist} holds
 * {@link #COUNT} comma-separated counts, lowest bucket first: the successes (published or handled) of the
 * window by their latency from the event's {@code create_time} to its success, in whole milliseconds. Bucket
 * {@code i} counts latencies {@code > bound(i - 1)} and {@code <= bound(i)} ({@link #upperBoundsMillis()}: 5,
 * 10, 25, 50, 100, 250, 500, 1,000, 2,500, 5,000, 10,000, 30,000, 60,000 ms); bucket 0 starts at 0, and the
 * last bucket counts everything above 60,000 ms. The counts of a row sum to its {@code succeeded}; its
 * {@code latency_sum_ms} and {@code latency_max_ms} are the exact sum and largest latency of those
 * successes.
 * <p>
 * To chart a minute, add the histograms of the rows whose {@code window_start} falls in it bucket by bucket
 * ({@link #parse}, then {@link #add}) and take {@link #quantileMillis}: the upper bound of the bucket that holds
 * the quantile (an estimate no lower than the true value, within the bucket's width), or, in the last bucket,
 * the largest latency. The mean is the sum over the count. The bounds never change meaning: a new bound would
 * be a new column, not a new reading of this one.
 */
public final class LatencyBuckets {

    private static final long[] BOUNDS = {5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000};

    /** Buckets in a histogram: one per bound and one above the last. */
    public static final int COUNT = BOUNDS.length + 1;

    private LatencyBuckets() {
    }

    /** The buckets' inclusive upper bounds in milliseconds, ascending; the last bucket has none. */
    public static List<Long> upperBoundsMillis() {
        List<Long> out = new ArrayList<>(BOUNDS.length);
        for (long b : BOUNDS) {
            out.add(b);
        }
        return List.copyOf(out);
    }

    /** The bounds as an array (a copy), for the writers' accumulators. */
    public static long[] upperBounds() {
        return BOUNDS.clone();
    }

    /** The bucket that counts a latency of {@code millis} (negative counts as 0). */
    public static int bucketOf(long millis) {
        int i = 0;
        while (i < BOUNDS.length && millis > BOUNDS[i]) {
            i++;
        }
        return i;
    }

    /**
     * The counts of a stored {@code latency_hist}; null or empty text is all zeros.
     *
     * @throws IllegalArgumentException when it is not {@link #COUNT} non-negative integers separated by commas
     */
    public static long[] parse(String text) {
        long[] counts = new long[COUNT];
        if (text == null || text.isBlank()) {
            return counts;
        }
        String[] parts = text.split(",", -1);
        if (parts.length != COUNT) {
            throw new IllegalArgumentException("latency_hist must have " + COUNT + " counts (was " + parts.length + ")");
        }
        for (int i = 0; i < COUNT; i++) {
            long n = Long.parseLong(parts[i].strip());
            if (n < 0) {
                throw new IllegalArgumentException("latency_hist count " + i + " is negative: " + n);
            }
            counts[i] = n;
        }
        return counts;
    }

    /** {@code counts} as {@code latency_hist} stores them. */
    public static String format(long[] counts) {
        check(counts);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < counts.length; i++) {
            b.append(i == 0 ? "" : ",").append(counts[i]);
        }
        return b.toString();
    }

    /** Adds {@code more} into {@code into}, bucket by bucket; returns {@code into}. */
    public static long[] add(long[] into, long[] more) {
        check(into);
        check(more);
        for (int i = 0; i < COUNT; i++) {
            into[i] += more[i];
        }
        return into;
    }

    /**
     * The {@code q} quantile (0 &lt; q &lt;= 1, e.g. 0.5 or 0.99) of the latencies counted in {@code counts}: the upper
     * bound of the bucket holding it, or {@code maxMillis} when that is the last bucket (or when it is lower than
     * the bound: no latency exceeded it); null for no counts.
     */
    public static Long quantileMillis(long[] counts, double q, long maxMillis) {
        check(counts);
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile must be in (0, 1] (was " + q + ")");
        }
        long total = 0;
        for (long n : counts) {
            total += n;
        }
        if (total == 0) {
            return null;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < COUNT; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return i == BOUNDS.length ? maxMillis : Math.min(BOUNDS[i], maxMillis);
            }
        }
        return maxMillis;
    }

    private static void check(long[] counts) {
        if (counts == null || counts.length != COUNT) {
            throw new IllegalArgumentException("a latency histogram has " + COUNT + " counts (was "
                    + (counts == null ? "null" : counts.length) + ")");
        }
    }
}
