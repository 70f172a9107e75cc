package dev.postbox.bench;

import java.util.function.LongSupplier;

/**
 * Waits until {@code delivered} reaches a target, printing a PROGRESS line every {@value #EVERY_MS} ms
 * (the window's rate and where the relays spent their time). Gives up when nothing arrives for
 * {@code stallMillis}, or at a deadline: a stalled or crawling relay is a result, not a hang.
 */
final class Progress {

    static final long EVERY_MS = 5_000;
    private static final long NO_TIMEOUT = 0;

    private final LongSupplier delivered;
    private final RelayTimers timers;
    private final long startNanos;

    Progress(LongSupplier delivered, RelayTimers timers, long startNanos) {
        this.delivered = delivered;
        this.timers = timers;
        this.startNanos = startNanos;
    }

    /** True when {@code target} was reached; false after a stall. */
    boolean awaitAtLeast(long target, long stallMillis) throws InterruptedException {
        return awaitAtLeast(target, stallMillis, NO_TIMEOUT);
    }

    /** True when {@code target} was reached; false after a stall or {@code timeoutMillis} (if positive) after the start. */
    boolean awaitAtLeast(long target, long stallMillis, long timeoutMillis) throws InterruptedException {
        long deadline = startNanos + timeoutMillis * 1_000_000L;
        long lastCount = delivered.getAsLong();
        long lastChange = System.nanoTime();
        long nextReport = System.nanoTime() + EVERY_MS * 1_000_000L;
        long reportedCount = lastCount;
        long reportedAt = System.nanoTime();
        while (true) {
            long count = delivered.getAsLong();
            long now = System.nanoTime();
            if (count >= target) {
                return true;
            }
            if (timeoutMillis != NO_TIMEOUT && now - deadline > 0) {
                Fmt.line("TIMEOUT after " + timeoutMillis / 1000 + " s at delivered=" + count + " of " + target
                        + "; relays: " + timers.total() + " " + timers.failures());
                return false;
            }
            if (count != lastCount) {
                lastCount = count;
                lastChange = now;
            } else if (now - lastChange > stallMillis * 1_000_000L) {
                Fmt.line("STALL no delivery for " + stallMillis + " ms at delivered=" + count + " of " + target
                        + "; relays: " + timers.total() + " " + timers.failures());
                return false;
            }
            if (now >= nextReport) {
                report(count, count - reportedCount, (now - reportedAt) / 1e9);
                reportedCount = count;
                reportedAt = now;
                nextReport = now + EVERY_MS * 1_000_000L;
            }
            Thread.sleep(5);
        }
    }

    void report(long count, long windowCount, double windowSeconds) {
        Fmt.line("PROGRESS t=" + Fmt.two((System.nanoTime() - startNanos) / 1e9) + "s delivered=" + count
                + " window_eps=" + Fmt.rate(windowCount / windowSeconds) + " " + timers.window());
    }
}
