package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** What a downstream consumer saw: every delivery in arrival order, checked for loss, duplicates and order. */
final class Receiver {

    final ConcurrentLinkedQueue<OutboxRecord> deliveries = new ConcurrentLinkedQueue<>();
    private final Map<String, AtomicInteger> perEvent = new ConcurrentHashMap<>();

    void accept(OutboxRecord r) {
        deliveries.add(r);
        perEvent.computeIfAbsent(r.eventNo(), k -> new AtomicInteger()).incrementAndGet();
    }

    int distinct() {
        return perEvent.size();
    }

    /** Deliveries beyond the first of each event. */
    int duplicates() {
        return deliveries.size() - perEvent.size();
    }

    int times(String eventNo) {
        AtomicInteger n = perEvent.get(eventNo);
        return n == null ? 0 : n.get();
    }

    /**
     * Per aggregate, the first delivery of each event must come in id order: a later event never reaches
     * the consumer before an earlier one of the same aggregate has. Returns the violations found.
     */
    List<String> orderViolations() {
        Map<String, Long> lastFirstDelivery = new HashMap<>();
        Map<String, Boolean> seen = new HashMap<>();
        List<String> violations = new ArrayList<>();
        for (OutboxRecord r : deliveries) {
            if (seen.put(r.eventNo(), Boolean.TRUE) != null) {
                continue;
            }
            String key = r.aggregateType() + "/" + r.aggregateId();
            Long previous = lastFirstDelivery.get(key);
            if (previous != null && previous > r.id()) {
                violations.add(key + ": " + r.id() + " after " + previous);
            }
            lastFirstDelivery.put(key, previous == null ? r.id() : Math.max(previous, r.id()));
        }
        return violations;
    }
}
