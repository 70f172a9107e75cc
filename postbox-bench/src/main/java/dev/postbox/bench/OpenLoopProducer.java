package dev.postbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * Sends {@code total} events by a {@link Timetable}: event {@code seq} is due at
 * {@code start + seq / rate}, whatever happened to earlier ones, so a stall delays the events behind it
 * (and shows in their latency) instead of quietly lowering the offered load (coordinated omission).
 * Several threads take the next due event, so one slow commit does not hold up the schedule.
 */
final class OpenLoopProducer {

    /** How the run went: events committed, failed writes, and how far behind schedule a send started at worst. */
    record Stats(long sent, long failed, double maxLagMs) {
    }

    private final EventWriter writer;
    private final Aggregates aggregates;
    private final int threads;
    private final long total;
    private final Timetable timetable;
    private final LongConsumer afterCommit;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final LongAccumulator maxLagNanos = new LongAccumulator(Math::max, 0);

    OpenLoopProducer(EventWriter writer, Aggregates aggregates, int threads, Timetable timetable, long total,
                     LongConsumer afterCommit) {
        this.writer = writer;
        this.aggregates = aggregates;
        this.threads = threads;
        this.total = total;
        this.timetable = timetable;
        this.afterCommit = afterCommit;
    }

    Stats run() throws InterruptedException {
        timetable.begin(50_000_000L);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread w = new Thread(() -> work(thread), "bench-producer-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return new Stats(sent.get(), failed.get(), maxLagNanos.get() / 1e6);
    }

    private void work(int thread) {
        long k = 0;
        for (long seq = next.getAndIncrement(); seq < total; seq = next.getAndIncrement()) {
            long due = timetable.due(seq);
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            maxLagNanos.accumulate(System.nanoTime() - due);
            try {
                writer.write(seq, aggregates.of(thread, k++));
                sent.incrementAndGet();
                afterCommit.accept(seq);
            } catch (Exception e) {
                if (failed.incrementAndGet() <= 5) {
                    System.err.println("WARN producer write of event " + seq + " failed: " + e);
                }
            }
        }
    }
}
