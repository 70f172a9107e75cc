package dev.postbox.examples.orders.inventory;

import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Subscribes the inventory consumer to the starter's in-process {@link EventBus} (the default set-up: the
 * relay routes channel MQ to the bus, {@code postbox.event-bus.channels=MQ}). ORDER_CREATED events go to
 * {@link InventoryService}; the order's other events are not the inventory's business. A failure makes the
 * relay publish the event again later; the consume log makes that harmless.
 */
@Component
@ConditionalOnProperty(prefix = "postbox.event-bus", name = "enabled", havingValue = "true", matchIfMissing = true)
public class EventBusInventoryConsumer {

    public EventBusInventoryConsumer(EventBus bus, InventoryService inventory, OrderProperties properties) {
        bus.subscribe(properties.events().topic(), (OutboxRecord r) -> {
            if (OrderEvents.ORDER_CREATED.equals(r.eventType())) {
                inventory.onOrderCreated(r.eventNo(), r.payload());
            }
        });
    }
}
