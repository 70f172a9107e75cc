package dev.postbox.bench;

/** When each event of an open-loop run is due: {@code start + seq / rate}. Set once by {@link #begin}, then read-only. */
final class Timetable {

    private final double periodNanos;
    private volatile long startNanos;

    Timetable(int ratePerSecond) {
        this.periodNanos = 1e9 / ratePerSecond;
    }

    /** Starts the schedule {@code delayNanos} from now. */
    void begin(long delayNanos) {
        startNanos = System.nanoTime() + delayNanos;
    }

    long due(long seq) {
        return startNanos + (long) (seq * periodNanos);
    }
}
