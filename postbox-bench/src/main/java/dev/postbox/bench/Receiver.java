package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What a downstream consumer saw, checked as it arrives: distinct events (by event_no), duplicates
 * (deliveries beyond the first) and per-aggregate order violations (the first delivery of an event with a
 * lower id after that of a higher id of the same aggregate). Thread-safe: several relays deliver at once;
 * each aggregate's check runs under that aggregate's lock.
 */
final class Receiver {

    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final Map<String, long[]> highestIdPerAggregate = new ConcurrentHashMap<>();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder distinct = new LongAdder();
    private final LongAdder violations = new LongAdder();
    private final Consumer<OutboxRecord> onFirstDelivery;

    /** {@code onFirstDelivery} runs once per distinct event, on the delivering thread (e.g. to record latency). */
    Receiver(Consumer<OutboxRecord> onFirstDelivery) {
        this.onFirstDelivery = onFirstDelivery;
    }

    Receiver() {
        this(r -> { });
    }

    void accept(OutboxRecord r) {
        deliveries.increment();
        long[] highest = highestIdPerAggregate.computeIfAbsent(r.aggregateType() + "/" + r.aggregateId(), k -> new long[1]);
        synchronized (highest) {
            if (!seen.add(r.eventNo())) {
                return;
            }
            if (r.id() < highest[0]) {
                violations.increment();
            } else {
                highest[0] = r.id();
            }
        }
        distinct.increment();
        onFirstDelivery.accept(r);
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
