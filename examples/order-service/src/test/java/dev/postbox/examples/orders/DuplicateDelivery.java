package dev.postbox.examples.orders;

import dev.postbox.examples.orders.inventory.InventoryService;
import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.relay.EventBus;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When {@link #enabled}, every ORDER_CREATED the relay hands to the event bus reaches the inventory consumer
 * three times: once through the application's subscriber, then again on the relay's thread (a redelivery)
 * and, at the same moment, from another thread (a concurrent duplicate, as two broker consumers would see).
 * Counts the outcomes of the extra deliveries and keeps their errors.
 */
public class DuplicateDelivery {

    /** Subscribes a {@link DuplicateDelivery} to the application's event bus. */
    @TestConfiguration(proxyBeanMethods = false)
    public static class Config {

        @Bean(destroyMethod = "shutdown")
        DuplicateDelivery duplicateDelivery(EventBus bus, InventoryService inventory) {
            DuplicateDelivery d = new DuplicateDelivery();
            bus.subscribe(EventBus.ALL_TOPICS, r -> d.redeliver(inventory, r.eventType(), r.eventNo(), r.payload()));
            return d;
        }
    }

    volatile boolean enabled;
    final Map<InventoryService.Outcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger inFlight = new AtomicInteger();
    private final ExecutorService concurrent = Executors.newFixedThreadPool(2);

    private void redeliver(InventoryService inventory, String eventType, String eventNo, String payload) {
        if (!enabled || !OrderEvents.ORDER_CREATED.equals(eventType)) {
            return;
        }
        inFlight.addAndGet(2);
        concurrent.execute(() -> deliver(inventory, eventNo, payload));
        deliver(inventory, eventNo, payload);
    }

    private void deliver(InventoryService inventory, String eventNo, String payload) {
        try {
            outcomes.computeIfAbsent(inventory.onOrderCreated(eventNo, payload), o -> new AtomicInteger()).incrementAndGet();
        } catch (Throwable e) {
            errors.add(e);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    int count(InventoryService.Outcome outcome) {
        AtomicInteger n = outcomes.get(outcome);
        return n == null ? 0 : n.get();
    }

    void shutdown() throws InterruptedException {
        concurrent.shutdown();
        concurrent.awaitTermination(10, TimeUnit.SECONDS);
    }
}
