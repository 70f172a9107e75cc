package dev.postbox.spring.autoconfigure.listener;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.rabbitmq.RabbitConsumer;
import dev.postbox.spring.PostboxListener.Transport;
import org.springframework.beans.factory.ObjectProvider;

import java.io.IOException;

/**
 * RabbitMQ: one {@link RabbitConsumer} per group on its queue, with the starter's connection factory
 * ({@code postbox.rabbitmq.*} / {@code spring.rabbitmq.*}). With topics, the queue (durable) and each topic's
 * exchange (a durable topic exchange) are declared when missing and the queue is bound to each exchange with the
 * group's binding key, so events the relay publishes to those exchanges reach it; without topics the queue must
 * exist.
 */
final class RabbitListenerTransport implements ListenerTransport {

    private final ObjectProvider<ConnectionFactory> factory;

    RabbitListenerTransport(ObjectProvider<ConnectionFactory> factory) {
        this.factory = factory;
    }

    @Override
    public Transport transport() {
        return Transport.RABBITMQ;
    }

    @Override
    public void check(ListenerGroup group) {
        if (group.queue().isBlank()) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " names no queue: set queue to the"
                    + " RabbitMQ queue to consume, e.g. queue = \"inventory.orders\"");
        }
        if (factory.getIfAvailable() == null) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " needs a RabbitMQ broker: set"
                    + " postbox.rabbitmq.host (or spring.rabbitmq.host)");
        }
    }

    @Override
    public AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) throws Exception {
        ConnectionFactory f = factory.getObject();
        if (!group.topics().isEmpty()) {
            try (Connection c = f.newConnection("postbox-listener-declare-" + group.consumer())) {
                declareQueue(c, group.queue());
                for (String exchange : group.topics()) {
                    declareExchange(c, exchange);
                    try (Channel ch = c.createChannel()) {
                        ch.queueBind(group.queue(), exchange, group.bindingKey());
                    }
                }
            }
        }
        return RabbitConsumer.builder(f, group.queue(), consumer).start();
    }

    /** A passive declare that fails closes its channel: each attempt gets a channel of its own. */
    private static void declareQueue(Connection c, String queue) throws Exception {
        try (Channel ch = c.createChannel()) {
            ch.queueDeclarePassive(queue);
            return;
        } catch (IOException notThere) {
            // 404: declared below
        }
        try (Channel ch = c.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
        }
    }

    private static void declareExchange(Connection c, String exchange) throws Exception {
        try (Channel ch = c.createChannel()) {
            ch.exchangeDeclarePassive(exchange);
            return;
        } catch (IOException notThere) {
            // 404: declared below
        }
        try (Channel ch = c.createChannel()) {
            ch.exchangeDeclare(exchange, "topic", true);
        }
    }
}
