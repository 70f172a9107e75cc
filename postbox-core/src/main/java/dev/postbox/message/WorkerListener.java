package dev.postbox.message;

import java.time.Duration;
import java.time.Instant;

/**
 * Hooks of a {@link MessageWorker} for metrics, tracing and alerts; every method has a no-op default and
 * runs on a worker thread, so it must be quick and must not throw (an exception is logged and ignored).
 * Outcome hooks run after the outcome committed, and only for outcomes this worker recorded (not for
 * fenced ones). {@link #NOOP} does nothing.
 */
public interface WorkerListener {

    WorkerListener NOOP = new WorkerListener() { };

    /** A handler call ended after {@code took}; {@code error} is null when it succeeded. */
    default void handled(MessageRecord event, Duration took, Throwable error) {
    }

    /** {@code event} was recorded FAILED and is due again at {@code nextRetry}. */
    default void failed(MessageRecord event, String reason, Instant nextRetry) {
    }

    /** {@code event} was recorded DEAD: a person must look at it. */
    default void dead(MessageRecord event, String reason) {
    }

    /** {@code event} was cancelled after its last retry, as its type's policy allows. */
    default void cancelled(MessageRecord event, String reason) {
    }

    /** A cycle of worker {@code workerId} ended after {@code took}. */
    default void cycle(String workerId, WorkerCycle cycle, Duration took) {
    }
}
