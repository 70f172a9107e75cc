package dev.postbox.examples.readme;

import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxListener.Transport;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

@Component
public class OrderConsumers {
    record OrderCreated(String orderNo, String sku, int quantity) { }

    private final JdbcClient jdbc;

    public OrderConsumers(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @PostboxListener(consumer = "inventory", topics = "${shop.topic}")           // the in-process event bus
    void reserve(OrderCreated order) {
        jdbc.sql("UPDATE stock SET reserved = reserved + ? WHERE sku = ?").params(order.quantity(), order.sku()).update();
    }

    @PostboxListener(consumer = "billing", transport = Transport.KAFKA, topics = "${shop.topic}")
    void bill(OrderCreated order, Envelope envelope) {
        handled("billing", order, envelope);
    }

    @PostboxListener(consumer = "shipping", transport = Transport.RABBITMQ, topics = "${shop.topic}",
            queue = "${shop.topic}.shipping")                                   // declared and bound to the exchange
    void ship(OrderCreated order, Envelope envelope) {
        handled("shipping", order, envelope);
    }

    @PostboxListener(consumer = "mailer", transport = Transport.NATS, stream = "${shop.stream}")
    void mail(OrderCreated order, Envelope envelope) {
        handled("mailer", order, envelope);
    }

    private void handled(String consumer, OrderCreated order, Envelope envelope) {   // joins the listener's transaction
        jdbc.sql("INSERT INTO handled (consumer, order_no, event_no) VALUES (?, ?, ?)")
                .params(consumer, order.orderNo(), envelope.eventNo()).update();
    }
}
