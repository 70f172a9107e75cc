package dev.postbox.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.TcpProxy;
import dev.postbox.testing.TransportContract;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The transport conformance suite on the local RabbitMQ: a throw-away topic exchange and durable queue;
 * the publisher connects through a TCP proxy for the outage, the consumer directly.
 */
class RabbitTransportTest extends TransportContract {

    @Override
    protected Broker startBroker() throws Exception {
        String id = "pbt-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        ConnectionFactory direct = RabbitTestSupport.factory();
        Connection adminConnection = direct.newConnection("postbox-contract-admin");
        Channel admin = adminConnection.createChannel();
        String exchange = id + ".orders";
        String queue = id + ".inventory";
        admin.exchangeDeclare(exchange, "topic", true);
        admin.queueDeclare(queue, true, false, false, null);
        admin.queueBind(queue, exchange, "order.#");
        TcpProxy proxy = new TcpProxy(RabbitTestSupport.HOST, RabbitTestSupport.PORT);
        ConnectionFactory viaProxy = RabbitTestSupport.factory();
        viaProxy.setPort(proxy.port());
        RabbitPublisher publisher = RabbitPublisher.builder(viaProxy).confirmTimeout(Duration.ofSeconds(2))
                .reconnectInterval(Duration.ofMillis(250)).build();
        return new Broker() {
            @Override
            public String topic() {
                return exchange;
            }

            @Override
            public String routingKey() {
                return "order.changed";
            }

            @Override
            public Publisher publisher() {
                return publisher;
            }

            @Override
            public AutoCloseable consume(EnvelopeConsumer consumer) throws Exception {
                return RabbitConsumer.builder(direct, queue, consumer).prefetch(500).start();
            }

            @Override
            public void outage(Duration length) throws Exception {
                proxy.cut(length);
            }

            @Override
            public boolean deduplicates() {
                return false; // queues keep both copies; the inbox absorbs the second
            }

            @Override
            public void close() throws Exception {
                publisher.close();
                proxy.close();
                try {
                    admin.queueDelete(queue);
                    admin.exchangeDelete(exchange);
                } finally {
                    adminConnection.close();
                }
            }
        };
    }
}
