package dev.postbox.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets at most one write of a Postbox per interval send its NOTIFY. A transaction that sent NOTIFY takes a
 * database-wide lock at commit and holds it through its WAL flush, so notifying commits run one at a time
 * across the whole server: with every write notifying, that lock (not the disk) caps the writers. The
 * writes in between do without: the notification of the write that passed wakes the listening relays, which
 * then claim until nothing is left and poll again after {@code pollMin}, so a write committed shortly after
 * it is found within about one poll interval; the same-JVM after-commit hint ({@code Postbox.wakeRelays()},
 * which the Spring starter sends) is immediate and costs nothing. Thread-safe.
 */
public final class NotifyGate {

    /** Every write notifies. */
    public static final NotifyGate EVERY_WRITE = new NotifyGate(Duration.ZERO);

    private final long intervalNanos;
    /** When the last NOTIFY passed, as a {@link System#nanoTime()}; far in the past at first. */
    private final AtomicLong last;

    public NotifyGate(Duration interval) {
        this.intervalNanos = interval.toNanos();
        this.last = new AtomicLong(System.nanoTime() - Math.max(intervalNanos, 1) - 1);
    }

    public Duration interval() {
        return Duration.ofNanos(intervalNanos);
    }

    /** Whether this write is the one of its interval that notifies (and takes the interval). */
    public boolean pass() {
        if (intervalNanos == 0) {
            return true;
        }
        long now = System.nanoTime();
        long previous = last.get();
        return now - previous >= intervalNanos && last.compareAndSet(previous, now);
    }
}
