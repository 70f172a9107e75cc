package dev.postbox.examples.orders.inventory;

import dev.postbox.Postbox;
import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.examples.orders.order.OrderEvents;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.kafka.KafkaEnvelopeConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;

/**
 * Profile {@code kafka}: the relay publishes channel MQ to Kafka (the starter's Kafka route,
 * {@code postbox.kafka.channels=MQ}) and the inventory consumer reads topic {@code order.event} with
 * postbox-kafka's consumer loop: each record runs in its own transaction with the consume-log row of
 * consumer {@value InventoryService#CONSUMER}, and its offset is committed after that transaction.
 *
 * <p>The loop's {@link EnvelopeConsumer} takes the inbox guard before it looks at the event, so the order's
 * other events (ORDER_CONFIRMED, ORDER_CANCELLED) also get a consume-log row, with nothing else done.
 */
@Configuration(proxyBeanMethods = false)
@Profile("kafka")
public class KafkaInventoryConsumerConfiguration {

    @Bean(destroyMethod = "close")
    KafkaEnvelopeConsumer inventoryKafkaConsumer(DataSource dataSource, Postbox postbox, InventoryService inventory,
                                                 OrderProperties properties, Environment env) {
        String servers = env.getProperty("postbox.kafka.bootstrap-servers", env.getProperty("spring.kafka.bootstrap-servers"));
        if (servers == null || servers.isBlank()) {
            throw new IllegalStateException("profile kafka needs postbox.kafka.bootstrap-servers (or"
                    + " spring.kafka.bootstrap-servers), e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
        }
        EnvelopeConsumer consumer = new EnvelopeConsumer(dataSource, postbox.inbox(), InventoryService.CONSUMER,
                (connection, envelope) -> {
                    if (OrderEvents.ORDER_CREATED.equals(envelope.eventType())) {
                        inventory.onOrderCreated(connection, envelope.payload());
                    }
                });
        return KafkaEnvelopeConsumer.builder(consumer)
                .bootstrapServers(servers)
                .groupId(InventoryService.CONSUMER)
                .topics(properties.events().topic())
                .start();
    }
}
