package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Base of the broker sinks: remembers each claimed row's id and aggregate by seq when the relay hands it
 * over ({@link SentLog}, a few bytes per event), so that what comes back from the broker (which carries
 * only the envelope) can be checked by the {@link Receiver} for loss, duplicates and order against the
 * outbox ids.
 */
abstract class EchoSink implements Publisher, AutoCloseable {

    private final SentLog sent = new SentLog();
    private final Receiver receiver;

    EchoSink(Receiver receiver) {
        this.receiver = receiver;
    }

    /** The transport's publisher the relay really uses. */
    abstract Publisher publisher();

    @Override
    public final List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        for (OutboxRecord r : records) {
            sent.record(r);
        }
        return publisher().publish(records);
    }

    /** The transport publisher's order lane, so that the relay hands it whole batches as it would without the sink. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return publisher().orderLane(event);
    }

    /** Called by the sink's consumer for every delivery read back from the broker. */
    final void delivered(String eventNo) {
        sent.deliver(eventNo, receiver);
    }
}
