package dev.postbox.message;

/**
 * Handles message events of one {@code event_type} for a {@link MessageWorker}. It runs on a worker
 * thread outside any Postbox transaction, with the worker's handler timeout; returning normally records
 * the event SUCCEEDED, throwing records a failed attempt (retried with backoff, or DEAD when the
 * {@link dev.postbox.spi.ErrorClassifier} says so, e.g. for a {@link dev.postbox.spi.NonRetryableException}).
 *
 * <p>Delivery is at least once: a worker that crashes (or overruns the stuck timeout) after the handler's
 * effects but before recording them leads to a second invocation. Make the effects idempotent, e.g. with
 * {@code postbox.inbox().once(connection, consumerName, event.eventNo(), ...)} in the handler's own
 * transaction. Implementations must be thread-safe when the worker has several threads, and should stop
 * when interrupted (the worker interrupts a handler that overruns its timeout).
 */
@FunctionalInterface
public interface MessageHandler {

    void handle(MessageRecord event) throws Exception;
}
