package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Sink {@code null}: hands every event to the {@link Receiver} and reports it PUBLISHED at once. */
final class NullSink implements Publisher {

    private static final CompletableFuture<PublishResult> DONE = CompletableFuture.completedFuture(PublishResult.published());

    private final Receiver receiver;

    NullSink(Receiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        for (OutboxRecord r : records) {
            receiver.accept(r);
            out.add(DONE);
        }
        return out;
    }
}
