package dev.postbox.internal;

import java.util.Arrays;

/**
 * What a relay or worker did since its last heartbeat, in memory: successes with their create-to-success
 * latency (sum, largest, and a histogram over fixed bucket bounds), failures with a retry left, and failures
 * that left the event dead. A cycle counts its own outcomes in a {@link Tally} (no sharing, no locking per
 * event) and adds them with one short lock when it has recorded them; the heartbeat takes the window with
 * {@link #drain()}. So the counts of one window always agree: the histogram sums to the successes.
 * Thread-safe.
 */
public final class WindowStats {

    private final long[] bounds;
    private final Object lock = new Object();
    private long succeeded;
    private long failed;
    private long dead;
    private long latencySum;
    private long latencyMax;
    private long[] histogram;

    /**
     * @param upperBoundsMillis the buckets' inclusive upper bounds in milliseconds, ascending; one more bucket
     *                          counts everything above the last
     */
    public WindowStats(long[] upperBoundsMillis) {
        this.bounds = upperBoundsMillis.clone();
        for (int i = 1; i < bounds.length; i++) {
            if (bounds[i] <= bounds[i - 1]) {
                throw new IllegalArgumentException("bucket bounds must ascend: " + Arrays.toString(bounds));
            }
        }
        this.histogram = new long[bounds.length + 1];
    }

    /** A new tally for one cycle's outcomes, on the calling thread only. */
    public Tally tally() {
        return new Tally();
    }

    /** The window so far, the counters reset: what the next heartbeat row holds. */
    public Snapshot drain() {
        synchronized (lock) {
            Snapshot s = new Snapshot(succeeded, failed, dead, latencySum, latencyMax, histogram);
            succeeded = failed = dead = latencySum = latencyMax = 0;
            histogram = new long[bounds.length + 1];
            return s;
        }
    }

    /** Adds a drained window back (its heartbeat row could not be written): it goes into the next one. */
    public void restore(Snapshot s) {
        synchronized (lock) {
            succeeded += s.succeeded();
            failed += s.failed();
            dead += s.dead();
            latencySum += s.latencySumMillis();
            latencyMax = Math.max(latencyMax, s.latencyMaxMillis());
            for (int i = 0; i < histogram.length; i++) {
                histogram[i] += s.histogram()[i];
            }
        }
    }

    /** One cycle's outcomes, counted without locks; {@link #add()} puts them into the window. Not thread-safe. */
    public final class Tally {
        private long succeeded;
        private long failed;
        private long dead;
        private long latencySum;
        private long latencyMax;
        private long[] histogram;

        private Tally() {
        }

        /** A success {@code latencyMillis} after the event was created (a negative one, from skewed clocks, counts as 0). */
        public void succeeded(long latencyMillis) {
            long ms = Math.max(0, latencyMillis);
            if (histogram == null) {
                histogram = new long[bounds.length + 1];
            }
            int i = 0;
            while (i < bounds.length && ms > bounds[i]) {
                i++;
            }
            histogram[i]++;
            succeeded++;
            latencySum += ms;
            latencyMax = Math.max(latencyMax, ms);
        }

        /** A failed attempt with a retry left. */
        public void failed() {
            failed++;
        }

        /** A failed attempt after which the event will not be tried again. */
        public void dead() {
            dead++;
        }

        /** Adds this tally to the window (once; a second call adds nothing). */
        public void add() {
            if (succeeded == 0 && failed == 0 && dead == 0) {
                return;
            }
            synchronized (lock) {
                WindowStats.this.succeeded += succeeded;
                WindowStats.this.failed += failed;
                WindowStats.this.dead += dead;
                WindowStats.this.latencySum += latencySum;
                WindowStats.this.latencyMax = Math.max(WindowStats.this.latencyMax, latencyMax);
                if (histogram != null) {
                    for (int i = 0; i < histogram.length; i++) {
                        WindowStats.this.histogram[i] += histogram[i];
                    }
                }
            }
            succeeded = failed = dead = latencySum = latencyMax = 0;
            histogram = null;
        }
    }

    /**
     * One window's counts.
     *
     * @param histogram successes per latency bucket, {@code bounds + 1} entries (a copy is kept)
     */
    public record Snapshot(long succeeded, long failed, long dead, long latencySumMillis, long latencyMaxMillis,
                           long[] histogram) {

        public Snapshot {
            histogram = histogram.clone();
        }

        @Override
        public long[] histogram() {
            return histogram.clone();
        }

        /** Nothing happened in the window. */
        public boolean empty() {
            return succeeded == 0 && failed == 0 && dead == 0;
        }

        /** The histogram as the stats table stores it: the counts, comma separated, lowest bucket first. */
        public String histogramText() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < histogram.length; i++) {
                if (i > 0) {
                    b.append(',');
                }
                b.append(histogram[i]);
            }
            return b.toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Snapshot s && succeeded == s.succeeded && failed == s.failed && dead == s.dead
                    && latencySumMillis == s.latencySumMillis && latencyMaxMillis == s.latencyMaxMillis
                    && Arrays.equals(histogram, s.histogram);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(succeeded) * 31 + Arrays.hashCode(histogram);
        }

        @Override
        public String toString() {
            return "Snapshot[succeeded=" + succeeded + ", failed=" + failed + ", dead=" + dead + ", latencySumMillis="
                    + latencySumMillis + ", latencyMaxMillis=" + latencyMaxMillis + ", histogram=" + histogramText() + "]";
        }
    }
}
