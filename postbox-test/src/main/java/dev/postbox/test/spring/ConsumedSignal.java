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
    private final Signal signal = new Signal();

    long deliveries() {
        return signal.count();
    }

    /** The last failure of {@code consumer}'s deliveries, or null. */
    String lastFailure(String consumer) {
        return lastFailure.get(consumer);
    }

    /** Waits until a delivery after {@code seen}, or until {@code nanos} passed; false if interrupted. */
    boolean awaitAfter(long seen, long nanos) {
        return signal.awaitAfter(seen, nanos);
    }

    @Override
    public void delivered(Delivery d) {
        if (d.outcome() == Outcome.FAILED) {
            lastFailure.put(d.consumer(), "event " + d.envelope().eventNo() + " on " + d.transport() + ": " + d.failure());
        }
        signal.bump();
    }
}
