package dev.postbox.spi;

import dev.postbox.outbox.OutboxRecord;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Sends claimed outbox events to a target (a broker, an HTTP endpoint, an in-process bus). The relay
 * calls it outside any transaction with the whole batch, and expects it to put every event in flight
 * at once, using the target's own batching, and to report each event's outcome separately so that a
 * partial failure retries only the failed events.
 *
 * <p>Implementations must be thread-safe and must not block the calling thread for long; the relay puts
 * its own timeout on every stage. A stage that completes exceptionally is classified by the relay's
 * {@link ErrorClassifier}.
 */
@FunctionalInterface
public interface Publisher {

    /**
     * Starts publishing {@code records}; returns one stage per record, in the same order. In the default
     * ordered mode a call holds at most one event per aggregate: the relay hands a claimed run of one
     * aggregate over in waves, the next event only after the previous one was published.
     */
    List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records);
}
