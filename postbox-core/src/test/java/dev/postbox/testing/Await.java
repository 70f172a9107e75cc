package dev.postbox.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition with a deadline; tests wait with this, never with fixed sleeps as assertions. */
public final class Await {

    private static final long POLL_MS = 20;

    private Await() {
    }

    /** Polls {@code condition} every 20 ms until it holds; fails after {@code timeout} naming {@code what}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    /**
     * As {@link #until(String, Duration, BooleanSupplier)}, and the failure ends with {@code state} (e.g. what was
     * received so far). An interrupt fails the wait too, keeping the thread's interrupt status.
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<?> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                Object now = state.get();
                String tail = now == null || now.toString().isEmpty() ? "" : "; now: " + now;
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + tail);
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
