package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Base of the broker sinks: remembers each claimed row by event_no when the relay hands it over, so
 * that what comes back from the broker (which carries only the envelope) can be checked by the
 * {@link Receiver} for loss, duplicates and order against the outbox ids.
 */
abstract class EchoSink implements Publisher, AutoCloseable {

    private final Map<String, OutboxRecord> sent = new ConcurrentHashMap<>();
    private final Receiver receiver;

    EchoSink(Receiver receiver) {
        this.receiver = receiver;
    }

    /** The transport's publisher the relay really uses. */
    abstract Publisher publisher();

    @Override
    public final List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        for (OutboxRecord r : records) {
            sent.put(r.eventNo(), r);
        }
        return publisher().publish(records);
    }

    /** Called by the sink's consumer for every delivery read back from the broker. */
    final void delivered(String eventNo) {
        OutboxRecord r = eventNo == null ? null : sent.get(eventNo);
        if (r != null) {
            receiver.accept(r);
        }
    }
}
