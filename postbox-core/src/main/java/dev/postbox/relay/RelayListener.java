package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;

import java.time.Duration;
import java.time.Instant;

/**
 * Hooks for metrics and tracing; every method has a no-op default and runs on the relay's thread, so it
 * must be quick and must not throw (an exception is logged and ignored). {@link #NOOP} does nothing.
 */
public interface RelayListener {

    RelayListener NOOP = new RelayListener() { };

    /** A batch of {@code count} events was claimed in {@code took}. */
    default void claimed(String relayId, int count, Duration took) {
    }

    /** The target accepted {@code event}; {@code latency} runs from its create_time to now. */
    default void published(OutboxRecord event, Duration latency) {
    }

    /** {@code event} failed and will be retried at {@code nextRetry}. */
    default void failed(OutboxRecord event, String reason, Instant nextRetry) {
    }

    /** {@code event} is DEAD: a person must retry or cancel it. */
    default void dead(OutboxRecord event, String reason) {
    }

    /** One claim-publish-record cycle finished. */
    default void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
    }
}
