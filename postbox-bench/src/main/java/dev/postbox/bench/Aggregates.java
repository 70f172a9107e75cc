package dev.postbox.bench;

/**
 * Aggregate ids {@code A0..A<n-1>}. Producers running on several threads split them so that each
 * aggregate belongs to one thread: events of one aggregate are then committed in id order, which is the
 * order the relay must keep (DESIGN.md §4: id order equals commit order only when writes of one aggregate
 * are serialized).
 */
final class Aggregates {

    private final int count;
    private final int threads;

    Aggregates(int count, int threads) {
        if (count < threads) {
            throw new UsageException("--aggregates (" + count + ") must be at least the number of producer threads ("
                    + threads + ")");
        }
        this.count = count;
        this.threads = threads;
    }

    /** The aggregate of the {@code k}-th event of producer thread {@code thread}. */
    String of(int thread, long k) {
        long perThread = count / threads;
        return "A" + (thread + threads * (k % perThread));
    }

    /** The aggregate of event {@code i} when one thread writes them all. */
    static String roundRobin(long i, int count) {
        return "A" + (i % count);
    }
}
