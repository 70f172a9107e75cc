package dev.postbox.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * {@code threads} producers, each committing its next event as soon as the previous one committed, until a
 * deadline. Records each transaction's latency (connection taken to commit returned) and its commit call's.
 */
final class ClosedLoopProducers {

    /** Events committed, failed writes, the producing time and the latencies in microseconds. */
    record Stats(long produced, long failed, double seconds, Histogram txMicros, Histogram commitMicros) {
    }

    private final EventWriter writer;
    private final Aggregates aggregates;
    private final int threads;
    private final LongConsumer afterCommit;
    private final AtomicLong next;
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Histogram txMicros = new ConcurrentHistogram(3);
    private final Histogram commitMicros = new ConcurrentHistogram(3);

    ClosedLoopProducers(EventWriter writer, Aggregates aggregates, int threads, LongConsumer afterCommit) {
        this(writer, aggregates, threads, afterCommit, 0);
    }

    /** The same, the first event (and business row) getting seq {@code firstSeq}, so that a second loop's ids differ. */
    ClosedLoopProducers(EventWriter writer, Aggregates aggregates, int threads, LongConsumer afterCommit, long firstSeq) {
        this.next = new AtomicLong(firstSeq);
        this.writer = writer;
        this.aggregates = aggregates;
        this.threads = threads;
        this.afterCommit = afterCommit;
    }

    Stats run(int seconds) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + seconds * 1_000_000_000L;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread w = new Thread(() -> work(thread, deadline), "bench-producer-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return new Stats(produced.get(), failed.get(), (System.nanoTime() - started) / 1e9, txMicros, commitMicros);
    }

    private void work(int thread, long deadline) {
        for (long k = 0; System.nanoTime() < deadline; k++) {
            long seq = next.getAndIncrement();
            try {
                long began = System.nanoTime();
                long commitNanos = writer.write(seq, aggregates.of(thread, k));
                txMicros.recordValue((System.nanoTime() - began) / 1000);
                commitMicros.recordValue(commitNanos / 1000);
                produced.incrementAndGet();
                afterCommit.accept(seq);
            } catch (Exception e) {
                if (failed.incrementAndGet() <= 5) {
                    System.err.println("WARN producer write of event " + seq + " failed: " + e);
                }
            }
        }
    }
}
