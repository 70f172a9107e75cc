package dev.postbox.test.spring;

/**
 * A count of things that happened (relay cycles, listener deliveries) that a waiting thread can wait on instead of
 * sleeping: {@link #awaitAfter} returns as soon as the count moves past what the waiter saw. Thread-safe.
 */
final class Signal {

    private long count;

    synchronized long count() {
        return count;
    }

    /** One more happened: wakes every waiter. */
    synchronized void bump() {
        count++;
        notifyAll();
    }

    /** Waits until the count is past {@code seen}, or until {@code nanos} passed; false if interrupted. */
    synchronized boolean awaitAfter(long seen, long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (count == seen && left > 0) {
            try {
                wait(Math.max(1, left / 1_000_000), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            left = deadline - System.nanoTime();
        }
        return true;
    }
}
