package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * What a downstream consumer saw, checked as it arrives: distinct events (by the seq of their event_no
 * {@code E-<seq>}), duplicates (deliveries beyond the first) and per-aggregate order violations (the first
 * delivery of an event with a lower id after that of a higher id of the same aggregate). Thread-safe:
 * several relays deliver at once; each aggregate's check runs under that aggregate's lock.
 *
 * <p>Compact, so that a backlog of millions of events drains in a small heap with the relay's memory, not
 * the bench's, as the limit: the events seen are one bit per seq ({@link SeqSet}), and the per-aggregate
 * state is one {@code long} per aggregate (the bench's aggregates are a fixed few thousand at most).
 */
final class Receiver {

    private final SeqSet seen = new SeqSet();
    private final Map<String, long[]> highestIdPerAggregate = new ConcurrentHashMap<>();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder distinct = new LongAdder();
    private final LongAdder violations = new LongAdder();
    private final LongConsumer onFirstDelivery;

    /**
     * {@code onFirstDelivery} gets the seq of each distinct event once, on the delivering thread (e.g. to
     * record latency).
     */
    Receiver(LongConsumer onFirstDelivery) {
        this.onFirstDelivery = onFirstDelivery;
    }

    Receiver() {
        this(seq -> { });
    }

    /** The key the order check groups by: aggregate type and id. */
    static String aggregateKey(OutboxRecord r) {
        return r.aggregateType() + "/" + r.aggregateId();
    }

    /**
     * Records one delivery of {@code r}, whose event_no must be one the bench wrote ({@code E-<seq>}); any
     * other is an {@link IllegalArgumentException}, since it cannot be checked.
     */
    void accept(OutboxRecord r) {
        accept(EventWriter.seq(r.eventNo()), r.id(), aggregateKey(r));
    }

    /** Records one delivery of event {@code seq}, outbox id {@code id}, of aggregate {@code aggregateKey}. */
    void accept(long seq, long id, String aggregateKey) {
        deliveries.increment();
        long[] highest = highestIdPerAggregate.computeIfAbsent(aggregateKey, k -> new long[1]);
        synchronized (highest) {
            if (!seen.add(seq)) {
                return;
            }
            if (id < highest[0]) {
                violations.increment();
            } else {
                highest[0] = id;
            }
        }
        distinct.increment();
        onFirstDelivery.accept(seq);
    }

    long distinct() {
        return distinct.sum();
    }

    long duplicates() {
        return deliveries.sum() - distinct.sum();
    }

    long orderViolations() {
        return violations.sum();
    }
}
