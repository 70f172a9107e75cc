package dev.postbox.bench;

import java.lang.management.ManagementFactory;

/**
 * This JVM's process CPU time over a measured window, as CPU milliseconds per 1,000 events, so that a change
 * that buys speed with CPU (or with more threads spinning) shows next to the rate. The figure covers the
 * whole process: the relays and also the bench's own producers, receiver and in-process broker, not the
 * database server or a broker running elsewhere.
 */
final class CpuClock {

    /** What every command prints next to the figure, once, so that no one reads it as the relay's alone. */
    static final String EXPLAINED = "cpu_ms_per_1k = this JVM's process CPU time over the measured window per 1,000"
            + " events (relays and the bench's own producers, receiver and in-process broker; not the database)";

    private static final com.sun.management.OperatingSystemMXBean OS = os();

    private final long startNanos;

    private CpuClock(long startNanos) {
        this.startNanos = startNanos;
    }

    /** Starts a window now. */
    static CpuClock start() {
        return new CpuClock(processCpuNanos());
    }

    /** CPU nanoseconds of the process since {@link #start()}; -1 where the JVM cannot tell. */
    long elapsedNanos() {
        long now = processCpuNanos();
        return now < 0 || startNanos < 0 ? -1 : now - startNanos;
    }

    /** {@code cpu_ms_per_1k=<ms>} for {@code events} in the window so far ({@code n/a} for none). */
    String per1k(long events) {
        return "cpu_ms_per_1k=" + per1k(elapsedNanos(), events);
    }

    /** CPU milliseconds per 1,000 events, 2 decimals, or {@code n/a}. */
    static String per1k(long cpuNanos, long events) {
        return cpuNanos < 0 || events <= 0 ? "n/a" : Fmt.two(cpuNanos / 1e6 / (events / 1000.0));
    }

    private static long processCpuNanos() {
        return OS == null ? -1 : OS.getProcessCpuTime();
    }

    private static com.sun.management.OperatingSystemMXBean os() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os : null;
    }
}
