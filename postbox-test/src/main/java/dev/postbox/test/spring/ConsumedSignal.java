package dev.postbox.test.spring;

import dev.postbox.spring.PostboxListenerObserver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the deliveries to the application's {@code @PostboxListener} methods (an observer bean the starter tells of
 * each one) and keeps each consumer's last failure, so that {@link PostboxAwait#awaitConsumed} waits for the next
 * delivery instead of sleeping and can say why a consumer has not consumed yet. Thread-safe.
 */
final class ConsumedSignal implements PostboxListenerObserver {

    private final Map<String, String> lastFailure = new ConcurrentHashMap<>();
    private long deliveries;

    synchronized long deliveries() {
        return deliveries;
    }

    /** The last failure of {@code consumer}'s deliveries, or null. */
    String lastFailure(String consumer) {
        return lastFailure.get(consumer);
    }

    /** Waits until a delivery after {@code seen}, or until {@code nanos} passed; false if interrupted. */
    synchronized boolean awaitAfter(long seen, long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (deliveries == seen && left > 0) {
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

    @Override
    public void delivered(Delivery d) {
        if (d.outcome() == Outcome.FAILED) {
            lastFailure.put(d.consumer(), "event " + d.envelope().eventNo() + " on " + d.transport() + ": " + d.failure());
        }
        synchronized (this) {
            deliveries++;
            notifyAll();
        }
    }
}
