package dev.postbox.spring.autoconfigure.listener;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxListener.Transport;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.transport.TransportClasses;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import javax.sql.DataSource;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import static dev.postbox.spring.autoconfigure.listener.ListenerApp.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * @PostboxListener on Kafka (in-process cluster), RabbitMQ, NATS JetStream and HTTP webhooks, on PostgreSQL: the
 * starter's relay publishes, the listener's method runs once per event in a Spring transaction with its JdbcTemplate
 * insert, and a redelivery of the whole stream runs nothing again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostboxListenerTransportsTest {

    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");

    private TestDatabase db;
    private DataSource ds;
    private KafkaCluster kafka;

    @BeforeAll
    void open() throws Exception {
        db = TestDatabase.postgres(null);
        ds = db.dataSource();
        kafka = KafkaCluster.shared(); // the test JVM's: the topic gets a unique name, no other class uses group inventory-kafka
    }

    @AfterAll
    void close() throws Exception {
        db.close();
    }

    @BeforeEach
    void clean() {
        ds = db.dataSource(); // a context that closed it (a failed start) leaves a closed pool: take the reopened one
        createReservations(ds);
    }

    static class KafkaInventory extends BrokerInventory {
        KafkaInventory(DataSource ds) {
            super(ds);
        }

        @PostboxListener(consumer = "inventory-kafka", transport = Transport.KAFKA, topics = "${test.topic}",
                eventTypes = "ORDER_CREATED")
        void onCreated(OrderCreated order, Envelope envelope) {
            reserve(order, envelope);
        }
    }

    static class RabbitInventory extends BrokerInventory {
        RabbitInventory(DataSource ds) {
            super(ds);
        }

        @PostboxListener(consumer = "inventory-rabbit", transport = Transport.RABBITMQ, queue = "${test.queue}",
                topics = "${test.exchange}")
        void onCreated(OrderCreated order, Envelope envelope) {
            reserve(order, envelope);
        }
    }

    static class NatsInventory extends BrokerInventory {
        NatsInventory(DataSource ds) {
            super(ds);
        }

        @PostboxListener(consumer = "inventory-nats", transport = Transport.NATS, stream = "${test.stream}",
                subject = "${test.prefix}>")
        void onCreated(OrderCreated order, Envelope envelope) {
            reserve(order, envelope);
        }
    }

    static class HttpInventory extends BrokerInventory {
        HttpInventory(DataSource ds) {
            super(ds);
        }

        @PostboxListener(consumer = "inventory-http", transport = Transport.HTTP, path = "/webhooks/orders")
        void onCreated(OrderCreated order, Envelope envelope) {
            reserve(order, envelope);
        }
    }

    private List<OutboxEvent> events(String channel, String topic, String run) {
        return IntStream.range(0, 5).mapToObj(i -> created(channel, topic, run + "-" + i, 2,
                "{\"sku\":\"SKU-" + i + "\",\"qty\":" + (i + 1) + ",\"currency\":\"EUR\"}")).toList();
    }

    /** Every event PUBLISHED, reserved exactly once by the method, and one consume-log row each. */
    private void assertConsumedOnce(ApplicationContext context, BrokerInventory inventory, String consumer, List<OutboxEvent> events) {
        List<String> nos = events.stream().map(OutboxEvent::eventNo).toList();
        nos.forEach(no -> awaitStatus(ds, no, 2));
        Await.until("the listener reserved " + nos, WAIT, () -> inventory.seen.containsAll(nos), () -> inventory.seen);
        // seen is filled inside the listener's transaction: wait for the last one to commit before counting rows
        Await.until("the listener's transactions committed", WAIT, () -> nos.stream().allMatch(no ->
                count(ds, "SELECT COUNT(*) FROM biz_consume_log WHERE consumer = ? AND event_no = ?", consumer, no) > 0));
        for (String no : nos) {
            assertThat(count(ds, "SELECT COUNT(*) FROM reservation WHERE event_no = ?", no)).as(no).isEqualTo(1);
            assertThat(count(ds, "SELECT COUNT(*) FROM biz_consume_log WHERE consumer = ? AND event_no = ?", consumer, no))
                    .as(no).isEqualTo(1);
        }
        Map<String, Object> details = context.getBean(PostboxListeners.class).details().get(0);
        assertThat(details).containsEntry("consumer", consumer).containsEntry("running", true);
        assertThat((Long) details.get("ran")).isGreaterThanOrEqualTo(5L);
    }

    @Test
    void kafka() throws Exception {
        String topic = kafka.createTopic("listener-orders", 2);
        String run = "K" + UUID.randomUUID().toString().substring(0, 8);
        runner(ds, TransportClasses.KAFKA)
                .withBean(KafkaInventory.class, () -> new KafkaInventory(ds))
                .withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(), "test.topic=" + topic)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    List<OutboxEvent> events = events("KAFKA", topic, run);
                    write(context, events);
                    assertConsumedOnce(context, context.getBean(KafkaInventory.class), "inventory-kafka", events);
                });
        // a new start of the consumer group reads nothing again (offsets committed after each transaction)
        ds = db.dataSource(); // the first context closed the pool it was given as its DataSource bean
        runner(ds, TransportClasses.KAFKA)
                .withBean(KafkaInventory.class, () -> new KafkaInventory(ds))
                .withPropertyValues("postbox.kafka.bootstrap-servers=" + kafka.bootstrapServers(), "test.topic=" + topic)
                .run(context -> {
                    List<OutboxEvent> more = events("KAFKA", topic, run + "b");
                    write(context, more);
                    assertConsumedOnce(context, context.getBean(KafkaInventory.class), "inventory-kafka", more);
                    assertThat(context.getBean(KafkaInventory.class).seen).noneMatch(no -> no.startsWith(run + "-"));
                });
    }

    @Test
    void rabbitMq() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 8);
        String exchange = "postbox-listener-" + id;
        String queue = "postbox-listener-q-" + id;
        try {
            runner(ds, TransportClasses.RABBIT)
                    .withBean(RabbitInventory.class, () -> new RabbitInventory(ds))
                    .withPropertyValues("postbox.rabbitmq.host=" + RABBIT_HOST, "test.exchange=" + exchange, "test.queue=" + queue)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        List<OutboxEvent> events = events("RABBITMQ", exchange, "R" + id);
                        write(context, events);
                        assertConsumedOnce(context, context.getBean(RabbitInventory.class), "inventory-rabbit", events);
                    });
        } finally {
            ConnectionFactory f = new ConnectionFactory();
            f.setHost(RABBIT_HOST);
            try (com.rabbitmq.client.Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                ch.queueDelete(queue);
                ch.exchangeDelete(exchange);
            }
        }
    }

    @Test
    void natsJetStream() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 8);
        String stream = "POSTBOX_LISTENER_" + id.toUpperCase();
        String prefix = "pbl" + id + ".";
        try (io.nats.client.Connection c = Nats.connect(NATS_URL)) {
            JetStreamManagement jsm = c.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ">").storageType(StorageType.Memory)
                    .duplicateWindow(Duration.ofMinutes(1)).build());
            try {
                runner(ds, TransportClasses.NATS)
                        .withBean(NatsInventory.class, () -> new NatsInventory(ds))
                        .withPropertyValues("postbox.nats.url=" + NATS_URL, "postbox.nats.subject-prefix=" + prefix,
                                "test.stream=" + stream, "test.prefix=" + prefix)
                        .run(context -> {
                            assertThat(context).hasNotFailed();
                            List<OutboxEvent> events = events("NATS", "order.created", "N" + id);
                            write(context, events);
                            assertConsumedOnce(context, context.getBean(NatsInventory.class), "inventory-nats", events);
                        });
            } finally {
                jsm.deleteStream(stream);
            }
        }
    }

    @Test
    void httpWebhooks() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String run = "H" + UUID.randomUUID().toString().substring(0, 8);
        // the application's own servlet on "/" (a Spring MVC application's DispatcherServlet): the webhook paths are
        // served by a filter in front of it
        web().withBean(HttpInventory.class, () -> new HttpInventory(ds))
                .withBean("applicationServlet", org.springframework.boot.web.servlet.ServletRegistrationBean.class,
                        () -> new org.springframework.boot.web.servlet.ServletRegistrationBean<>(
                                new jakarta.servlet.http.HttpServlet() { }, "/"))
                .withPropertyValues("server.port=" + port, "postbox.http.secret=s3cret-for-tests",
                        "postbox.http.endpoints.HTTP=http://127.0.0.1:" + port + "/webhooks/orders")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    List<OutboxEvent> events = events("HTTP", "order.event", run);
                    write(context, events);
                    assertConsumedOnce(context, context.getBean(HttpInventory.class), "inventory-http", events);
                    // an unsigned request is refused before anything runs
                    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/webhooks/orders"))
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).isEqualTo(401);
                });
    }

    private WebApplicationContextRunner web() {
        return new WebApplicationContextRunner(BootLine::servletWebServerContext)
                .withConfiguration(AutoConfigurations.of(BootLine.SERVLET_WEB_SERVER, PostboxAutoConfiguration.class,
                        TransportClasses.HTTP, PostboxListenerAutoConfiguration.class))
                .withBean(DataSource.class, () -> ds)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(ds))
                .withPropertyValues("spring.application.name=listener-http", "postbox.schema.mode=always",
                        "postbox.relay.poll-interval-max=200ms", "postbox.worker.enabled=false");
    }
}
