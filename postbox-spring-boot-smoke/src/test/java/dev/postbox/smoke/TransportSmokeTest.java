package dev.postbox.smoke;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's RabbitMQ, NATS JetStream and HTTP transports on this Boot line (Kafka's runs in the order-service
 * example on Boot 4 and in the auto-configuration tests on Boot 3.5): the application is configured by properties
 * only, events of the three channels are written in one transaction and arrive at the real RabbitMQ, the real
 * JetStream and a JDK HttpServer, and their rows become PUBLISHED. On Boot 3.5 this also runs postbox-rabbitmq on
 * the amqp-client version that line's dependency management picks.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
        "postbox.relay.poll-interval-max=200ms", "postbox.rabbitmq.username=guest", "postbox.rabbitmq.password=guest"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class TransportSmokeTest {

    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final TestDatabase DB = TestDatabase.h2();
    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String EXCHANGE = "postbox-smoke-" + RUN;
    static final String QUEUE = "postbox-smoke-" + RUN;
    static final String STREAM = "POSTBOX_SMOKE_" + RUN.toUpperCase();
    static final String SUBJECT_PREFIX = "smoke_" + RUN + ".";
    static final Map<String, String> RECEIVED_OVER_HTTP = new ConcurrentHashMap<>();

    static com.rabbitmq.client.Connection rabbit;
    static Channel channel;
    static Connection nats;
    static JetStreamManagement jsm;
    static HttpServer webhook = startWebhook();

    private static HttpServer startWebhook() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/hook", exchange -> {
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                RECEIVED_OVER_HTTP.put(key == null ? "?" : key,
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SmokeContract.datasource(registry, DB);
        registry.add("postbox.rabbitmq.host", () -> RABBIT_HOST);
        registry.add("postbox.nats.url", () -> NATS_URL);
        registry.add("postbox.nats.subject-prefix", () -> SUBJECT_PREFIX);
        registry.add("postbox.http.endpoints.HTTP", () -> "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook");
    }

    @BeforeAll
    static void brokers(@Autowired ConfigurableApplicationContext context) throws Exception {
        SmokeContract.dropWith(context, DB);
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        rabbit = f.newConnection("postbox-smoke-admin");
        channel = rabbit.createChannel();
        channel.exchangeDeclare(EXCHANGE, "topic", false, true, null);
        channel.queueDeclare(QUEUE, false, false, true, null);
        channel.queueBind(QUEUE, EXCHANGE, "order.*");
        nats = Nats.connect(NATS_URL);
        jsm = nats.jetStreamManagement();
        jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECT_PREFIX + ">")
                .storageType(StorageType.Memory).build());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try {
            channel.queueDelete(QUEUE);
            channel.exchangeDelete(EXCHANGE);
            rabbit.close();
            jsm.deleteStream(STREAM);
            nats.close();
        } finally {
            webhook.stop(0);
        }
    }

    @Autowired
    TransactionalOutbox outbox;
    @Autowired
    Postbox postbox;
    @Autowired
    PlatformTransactionManager transactions;

    private static OutboxEvent event(String eventNo, String channel, String topic) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo).eventType("ORDER_CREATED")
                .channel(channel).topic(topic).routingKey("order.created")
                .payload("{\"eventNo\":\"" + eventNo + "\"}").build();
    }

    @Test
    void eventsOfEachTransportChannelArriveAtTheirRealTargetAndArePublished() throws Exception {
        String viaRabbit = "RABBIT-" + RUN;
        String viaNats = "NATS-" + RUN;
        String viaHttp = "HTTP-" + RUN;
        new TransactionTemplate(transactions).executeWithoutResult(s -> outbox.writeAll(List.of(
                event(viaRabbit, "RABBITMQ", EXCHANGE), event(viaNats, "NATS", "order.created"),
                event(viaHttp, "HTTP", "order.created"))));

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (String no : List.of(viaRabbit, viaNats, viaHttp)) {
            while (postbox.queries().outbox().byEventNo(no).orElseThrow().status() != OutboxStatus.PUBLISHED) {
                assertThat(System.nanoTime()).as(no + " PUBLISHED, is "
                        + postbox.queries().outbox().byEventNo(no).orElseThrow()).isLessThan(deadline);
                Thread.sleep(50);
            }
        }

        GetResponse fromRabbit = channel.basicGet(QUEUE, true);
        assertThat(fromRabbit).as("a message in " + QUEUE).isNotNull();
        assertThat(new String(fromRabbit.getBody(), StandardCharsets.UTF_8)).contains(viaRabbit);
        assertThat(fromRabbit.getProps().getMessageId()).isEqualTo(viaRabbit);

        MessageInfo fromNats = jsm.getLastMessage(STREAM, SUBJECT_PREFIX + "order.created");
        assertThat(new String(fromNats.getData(), StandardCharsets.UTF_8)).contains(viaNats);

        assertThat(RECEIVED_OVER_HTTP).containsKey(viaHttp);
        assertThat(RECEIVED_OVER_HTTP.get(viaHttp)).contains(viaHttp);
    }
}
