package dev.postbox.server;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

/**
 * A destination's publisher behind its in-flight bound ({@code max-in-flight}), shared by every source routed to it: a
 * send takes a permit and returns it when its outcome is known. An event that finds none is not sent and is retried
 * after the relay's backoff, so a saturated or slow destination holds back only the events routed to it, never a
 * relay's thread nor the other destinations.
 */
final class BoundedPublisher implements Publisher, AutoCloseable {

    private final String name;
    private final Publisher target;
    private final int max;
    private final Semaphore permits;

    BoundedPublisher(String name, Publisher target, int maxInFlight) {
        this.name = name;
        this.target = target;
        this.max = maxInFlight;
        this.permits = new Semaphore(maxInFlight);
    }

    String name() {
        return name;
    }

    /** Sends under way now. */
    int inFlight() {
        return max - permits.availablePermits();
    }

    int maxInFlight() {
        return max;
    }

    @Override
    public Object orderLane(OutboxRecord event) {
        return target.orderLane(event);
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        List<OutboxRecord> sent = new ArrayList<>(records.size());
        List<Integer> at = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            out.add(null);
            if (permits.tryAcquire()) {
                sent.add(records.get(i));
                at.add(i);
            } else {
                out.set(i, CompletableFuture.completedFuture(PublishResult.retry("destination '" + name + "' has "
                        + max + " sends in flight (max-in-flight): not sent, retried after the backoff")));
            }
        }
        if (sent.isEmpty()) {
            return out;
        }
        List<CompletionStage<PublishResult>> results;
        try {
            results = target.publish(sent);
        } catch (RuntimeException e) {
            permits.release(sent.size());
            throw e;
        }
        for (int k = 0; k < results.size(); k++) {
            CompletionStage<PublishResult> r = results.get(k);
            r.whenComplete((v, e) -> permits.release());
            out.set(at.get(k), r);
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        if (target instanceof AutoCloseable c) {
            c.close();
        }
    }
}
