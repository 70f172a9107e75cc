package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;

import java.time.Duration;
import java.time.Instant;

/**
 * Hooks for metrics and tracing; every method has a no-op default and runs on one of the relay's threads,
 * so it must be quick and must not throw (an exception is logged and ignored). With more than one batch in
 * flight ({@code inFlightBatches}, default 2) the hooks of different batches run on different threads at
 * the same time, so an implementation must be thread-safe; the hooks of one batch run on one thread, in
 * order. {@link #NOOP} does nothing.
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

    /**
     * {@code event} was taken over from a relay whose lease expired before it recorded an outcome (it
     * crashed, was killed, or lost its database); {@code leaseExpiries} counts such takeovers of this
     * event so far. Not a failed attempt: the event's retries are untouched.
     */
    default void leaseExpired(OutboxRecord event, int leaseExpiries) {
    }

    /**
     * The relay's clock was measured {@code offset} away from the database's (positive: the database is
     * ahead) and is now {@code trusted} or not against {@code bound}. While not trusted, the relay does
     * not take over other relays' expired leases. Called when the verdict changes.
     */
    default void clockSkew(String relayId, Duration offset, Duration bound, boolean trusted) {
    }

    /**
     * {@code count} outcomes of one cycle were not recorded because this relay no longer held their rows' lease
     * (it expired and another relay took the events over): fenced writes, refused by {@code locked_by}. The other
     * relay publishes those events again; nothing is lost, but each is a sign of a lease too short for the sends.
     */
    default void fenced(String relayId, int count) {
    }

    /** One claim-publish-record cycle finished. */
    default void batch(String relayId, int claimed, int published, int failed, int dead, Duration took) {
    }
}
