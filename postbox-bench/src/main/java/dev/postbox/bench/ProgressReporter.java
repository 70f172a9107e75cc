package dev.postbox.bench;

import java.util.function.LongSupplier;

/** Prints a PROGRESS line every {@value Progress#EVERY_MS} ms on its own thread while producers run, until stopped. */
final class ProgressReporter {

    private final Thread thread;

    private ProgressReporter(Thread thread) {
        this.thread = thread;
    }

    static ProgressReporter start(LongSupplier delivered, RelayTimers timers, long startNanos) {
        Progress progress = new Progress(delivered, timers, startNanos);
        Thread t = new Thread(() -> {
            long last = delivered.getAsLong();
            long lastAt = System.nanoTime();
            try {
                while (true) {
                    Thread.sleep(Progress.EVERY_MS);
                    long count = delivered.getAsLong();
                    long now = System.nanoTime();
                    progress.report(count, count - last, (now - lastAt) / 1e9);
                    last = count;
                    lastAt = now;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-progress");
        t.setDaemon(true);
        t.start();
        return new ProgressReporter(t);
    }

    /** Stops the reporter and waits for a line it may be printing. */
    void stop() {
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
