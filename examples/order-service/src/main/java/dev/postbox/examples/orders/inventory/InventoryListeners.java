package dev.postbox.examples.orders.inventory;

import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.spring.PostboxListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * The inventory consumer of ORDER_CREATED, by annotation: the starter runs {@link InventoryService#reserve} once per
 * event for consumer {@value InventoryService#CONSUMER}, in a Spring transaction together with the consume-log row
 * (the reservation, the order's confirmation and ORDER_CONFIRMED commit with it, or nothing does), and acknowledges
 * the delivery after that commit. The order's other events are not the inventory's business.
 */
public final class InventoryListeners {

    private InventoryListeners() {
    }

    /** The default set-up: the relay hands channel MQ to the in-process event bus ({@code postbox.event-bus.channels=MQ}). */
    @Component
    @ConditionalOnProperty(prefix = "postbox.event-bus", name = "enabled", havingValue = "true", matchIfMissing = true)
    public static class OnEventBus {
        private final InventoryService inventory;

        public OnEventBus(InventoryService inventory) {
            this.inventory = inventory;
        }

        @PostboxListener(consumer = InventoryService.CONSUMER, topics = "${order.events.topic}",
                eventTypes = OrderEvents.ORDER_CREATED)
        void onOrderCreated(String payload) {
            inventory.reserve(payload);
        }
    }

    /**
     * Profile {@code kafka}: the relay publishes channel MQ to Kafka ({@code postbox.kafka.channels=MQ}) and this
     * listener reads topic {@code order.event} as consumer group {@value InventoryService#CONSUMER}; a record's offset
     * is committed after its transaction, a failure rewinds its partition.
     */
    @Component
    @Profile("kafka")
    public static class OnKafka {
        private final InventoryService inventory;

        public OnKafka(InventoryService inventory) {
            this.inventory = inventory;
        }

        @PostboxListener(consumer = InventoryService.CONSUMER, transport = PostboxListener.Transport.KAFKA,
                topics = "${order.events.topic}", eventTypes = OrderEvents.ORDER_CREATED)
        void onOrderCreated(String payload) {
            inventory.reserve(payload);
        }
    }
}
