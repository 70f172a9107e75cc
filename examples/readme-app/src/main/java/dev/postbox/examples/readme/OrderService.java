package dev.postbox.examples.readme;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.TransactionalOutbox;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.List;
import java.util.UUID;

@Service
public class OrderService {
    /** Where each order is announced: the in-process event bus and the three brokers. */
    public static final List<String> CHANNELS = List.of(EventBus.CHANNEL, "KAFKA", "RABBITMQ", "NATS");

    private final JdbcClient jdbc;
    private final TransactionalOutbox outbox;
    private final String topic;

    public OrderService(JdbcClient jdbc, TransactionalOutbox outbox, @Value("${shop.topic}") String topic) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.topic = topic;
    }

    @Transactional
    public String place(String sku, int quantity) {
        String orderNo = "ORD-" + UUID.randomUUID();
        jdbc.sql("INSERT INTO t_order (order_no, sku, quantity) VALUES (?, ?, ?)")
                .params(orderNo, sku, quantity).update();                   // the business change
        String payload = "{\"orderNo\":\"%s\",\"sku\":\"%s\",\"quantity\":%d}".formatted(orderNo, sku, quantity);
        for (String channel : CHANNELS) {                                   // one event per channel, same transaction
            outbox.write(OutboxEvent.builder()
                    .eventNo("ORDER_CREATED:" + orderNo + ":" + channel).aggregate("ORDER", orderNo)
                    .eventType("ORDER_CREATED").channel(channel).topic(topic).payload(payload).build());
        }
        return orderNo;
    }
}
