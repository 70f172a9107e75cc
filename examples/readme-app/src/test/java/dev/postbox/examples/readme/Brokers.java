package dev.postbox.examples.readme;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.kafka.testing.KafkaCluster;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.util.Locale;
import java.util.UUID;

/**
 * The brokers the shop's tests run against, one set of names per test JVM so that runs on the shared services never
 * meet: an in-process Kafka broker (with the topic created: Postbox never creates topics), the local RabbitMQ (the
 * listener declares its exchange and queue; they are deleted at the end) and the local NATS JetStream (the stream
 * capturing the topic is created here, as an operator would). A broker that is not there fails the run, loudly.
 */
final class Brokers {

    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String TOPIC = "orders-" + RUN;
    static final String STREAM = "ORDERS_" + RUN.toUpperCase(Locale.ROOT);

    private static KafkaCluster kafka;

    private Brokers() {
    }

    /** Starts (once) what the shop needs and registers its connection properties. */
    static synchronized void register(DynamicPropertyRegistry registry) {
        if (kafka == null) {
            kafka = start();
        }
        registry.add("postbox.kafka.bootstrap-servers", kafka::bootstrapServers);
        registry.add("postbox.rabbitmq.host", () -> RABBIT_HOST);
        registry.add("postbox.nats.url", () -> NATS_URL);
        registry.add("shop.topic", () -> TOPIC);
        registry.add("shop.stream", () -> STREAM);
    }

    private static KafkaCluster start() {
        KafkaCluster k = KafkaCluster.start();
        try (Connection nats = Nats.connect(NATS_URL)) {
            k.createTopicNamed(TOPIC, 2);
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects(TOPIC).storageType(StorageType.Memory).build());
        } catch (Exception e) {
            try {
                k.close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw new IllegalStateException("the shop's brokers (in-process Kafka, NATS at " + NATS_URL + "): " + e, e);
        }
        return k;
    }

    /**
     * At the end of the test run ({@link ShopContract} registers it in JUnit's root store), after the test classes
     * closed their contexts: the stream, the exchange and queue, the Kafka broker.
     */
    static synchronized void cleanUp() {
        if (kafka == null) {
            return;
        }
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().deleteStream(STREAM);
        } catch (Exception e) {
            System.err.println("shop brokers: deleting stream " + STREAM + ": " + e);
        }
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        try (com.rabbitmq.client.Connection rabbit = f.newConnection("shop-brokers-clean-up");
             Channel ch = rabbit.createChannel()) {
            ch.queueDelete(TOPIC + ".shipping");
            ch.exchangeDelete(TOPIC);
        } catch (Exception e) {
            System.err.println("shop brokers: deleting exchange and queue " + TOPIC + ": " + e);
        }
        try {
            kafka.close();
        } catch (Exception e) {
            System.err.println("shop brokers: stopping Kafka: " + e);
        }
        kafka = null;
    }
}
