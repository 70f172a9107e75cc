package dev.postbox.bench;

import java.util.OptionalLong;

/**
 * Counts the database's committed transactions between {@link #start()} and {@link #stop()}. PostgreSQL
 * backends report their counts lazily (when idle, at most once a second, and at exit), so both ends wait
 * until the counter stops moving; callers close the connections whose commits they count first. The
 * count includes every session on the database (and the few reads of this counter), so nothing else
 * should run meanwhile.
 */
final class CommitCounter {

    private static final long SETTLE_STEP_MS = 400;
    /**
     * How long each end waits at most for the counter to stop moving: 6,000 ms, or
     * {@code -Dpostbox.bench.commit-settle-ms}. postbox-bench's own tests take 1,000 ms (its pom): they run on the
     * shared database {@code test} beside other modules' tests, whose commits keep the counter moving, so it would
     * never settle there and each drain would wait the whole 12 s for a count that no test reads.
     */
    private static final long SETTLE_MAX_MS = Long.getLong("postbox.bench.commit-settle-ms", 6_000);
    private static final long NOISE = 3;

    private final BenchDatabase db;
    private long before = -1;

    CommitCounter(BenchDatabase db) {
        this.db = db;
    }

    void start() {
        OptionalLong now = settled();
        before = now.isPresent() ? now.getAsLong() : -1;
    }

    /** Commits since {@link #start()}, or empty where the database does not count them. */
    OptionalLong stop() {
        OptionalLong now = settled();
        if (now.isEmpty() || before < 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(now.getAsLong() - before);
    }

    private OptionalLong settled() {
        OptionalLong last = db.commits();
        if (last.isEmpty()) {
            return last;
        }
        long deadline = System.currentTimeMillis() + SETTLE_MAX_MS;
        while (System.currentTimeMillis() < deadline) {
            sleep(SETTLE_STEP_MS);
            OptionalLong next = db.commits();
            if (next.getAsLong() - last.getAsLong() <= NOISE) {
                return next;
            }
            last = next;
        }
        return last;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
