package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One server process relaying two sources (PostgreSQL and MariaDB) to four destinations (in-process Kafka, RabbitMQ,
 * NATS JetStream, an HTTP endpoint) by their routes: every event arrives where its route sends it and is PUBLISHED in
 * its database; readiness reports each relay and destination; the graceful close stops the relays. A source whose
 * tables are missing stops the start naming it.
 */
class RelayServerTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final String EXCHANGE = "postbox-server-" + RUN;
    static final String QUEUE = "postbox-server-" + RUN;
    static final String STREAM = "POSTBOX_SERVER_" + RUN.toUpperCase(Locale.ROOT);
    static final String SUBJECT = "server_" + RUN + ".orders";
    static final String TOPIC = "orders-" + RUN;
    /** The outage test's own topic and exchange, so that the counts of the other test stay its own. */
    static final String OUTAGE_TOPIC = "outage-" + RUN;
    static final String OUTAGE_EXCHANGE = "postbox-server-outage-" + RUN;
    static final int EACH = 20;

    static TestDatabase pg;
    static TestDatabase maria;
    static KafkaCluster kafka;
    static HttpServer hook;
    static final Set<String> HOOKED = ConcurrentHashMap.newKeySet();
    static com.rabbitmq.client.Connection rabbit;
    static Channel channel;

    @BeforeAll
    static void services() throws Exception {
        pg = TestDatabase.postgres(null);
        Postbox.builder(pg.dataSource()).build().schema().install();
        maria = TestDatabase.mariadb(null);
        Postbox.builder(maria.dataSource()).build().schema().install();
        kafka = KafkaCluster.shared(); // the test JVM's: this class's topics have its RUN in their names
        kafka.createTopicNamed(TOPIC, 2);
        kafka.createTopicNamed(OUTAGE_TOPIC, 1);
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        rabbit = f.newConnection("postbox-server-test");
        channel = rabbit.createChannel();
        channel.exchangeDeclare(EXCHANGE, "topic", false, true, null);
        channel.queueDeclare(QUEUE, false, false, true, null);
        channel.queueBind(QUEUE, EXCHANGE, "#");
        channel.exchangeDeclare(OUTAGE_EXCHANGE, "topic", false, true, null);
        channel.queueDeclare(OUTAGE_EXCHANGE, false, false, true, null); // routable: the publisher refuses unroutable messages
        channel.queueBind(OUTAGE_EXCHANGE, OUTAGE_EXCHANGE, "#");
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECT)
                    .storageType(StorageType.Memory).build());
        }
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/hook", exchange -> {
            HOOKED.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        hook.start();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().deleteStream(STREAM);
        }
        channel.queueDelete(QUEUE);
        channel.exchangeDelete(EXCHANGE);
        channel.queueDelete(OUTAGE_EXCHANGE);
        channel.exchangeDelete(OUTAGE_EXCHANGE);
        rabbit.close();
        hook.stop(0);
        pg.close();
        maria.close();
    }

    private static String yaml() {
        return """
                server: {address: 127.0.0.1, port: 0, instance-id: test-server}
                sources:
                  orders: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                  billing: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                destinations:
                  kafka: {type: kafka, bootstrap-servers: '%s'}
                  rabbit: {type: rabbitmq, host: %s}
                  nats: {type: nats, url: '%s'}
                  hook: {type: http, url: 'http://127.0.0.1:%d/hook', secret: a-secret-of-thirty-two-characters!}
                routes:
                  - {source: orders, channel: KAFKA, destination: kafka}
                  - {source: orders, channel: RABBITMQ, destination: rabbit}
                  - {source: billing, channel: NATS, destination: nats}
                  - {source: billing, channel: HTTP, destination: hook}
                """.formatted(pg.jdbcUrl(), pg.user(), maria.jdbcUrl(), maria.user(), kafka.bootstrapServers(),
                RABBIT_HOST, NATS_URL, hook.getAddress().getPort());
    }

    private static List<String> write(TestDatabase db, String channel, String topic) throws Exception {
        Postbox postbox = Postbox.builder(db.dataSource()).source("test").build();
        List<String> nos = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < EACH; i++) {
                String no = channel + "-" + RUN + "-" + i;
                postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", "o-" + (i % 5))
                        .eventType("ORDER_CREATED").channel(channel).topic(topic).payload("{\"i\":" + i + "}").build());
                nos.add(no);
            }
            c.commit();
        }
        return nos;
    }

    private static long published(TestDatabase db, List<String> nos) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM biz_outbox_event WHERE publish_status = "
                     + OutboxStatus.PUBLISHED.code() + " AND event_no LIKE ?")) {
            ps.setString(1, nos.get(0).substring(0, nos.get(0).lastIndexOf('-') + 1) + "%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("within 30 s: " + what).isTrue();
            Thread.sleep(50);
        }
    }

    private static boolean quietly(java.util.concurrent.Callable<Boolean> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void twoSourcesReachFourDestinationsByTheirRoutesAndReadinessShowsThem() throws Exception {
        List<String> viaKafka = write(pg, "KAFKA", TOPIC);
        List<String> viaRabbit = write(pg, "RABBITMQ", EXCHANGE);
        List<String> viaNats = write(maria, "NATS", SUBJECT);
        List<String> viaHttp = write(maria, "HTTP", "orders");

        ServerConfig config = new ConfigLoader(k -> null).parse("server.yml", yaml());
        HttpClient client = HttpClient.newHttpClient();
        try (RelayServer server = RelayServer.start(config)) {
            assertThat(server.relays()).containsOnlyKeys("orders", "billing");
            await("the orders' events PUBLISHED", () -> quietly(() -> published(pg, viaKafka) == EACH
                    && published(pg, viaRabbit) == EACH));
            await("the billing events PUBLISHED", () -> quietly(() -> published(maria, viaNats) == EACH
                    && published(maria, viaHttp) == EACH));

            Map<TopicPartition, OffsetSpec> ends = Map.of(new TopicPartition(TOPIC, 0), OffsetSpec.latest(),
                    new TopicPartition(TOPIC, 1), OffsetSpec.latest());
            long inKafka = kafka.admin().listOffsets(ends).all().get().values().stream().mapToLong(r -> r.offset()).sum();
            assertThat(inKafka).as("records in " + TOPIC).isEqualTo(EACH);
            assertThat(channel.messageCount(QUEUE)).as("messages in " + QUEUE).isEqualTo(EACH);
            try (Connection nats = Nats.connect(NATS_URL)) {
                JetStreamManagement jsm = nats.jetStreamManagement();
                assertThat(jsm.getStreamInfo(STREAM).getStreamState().getMsgCount()).isEqualTo(EACH);
            }
            assertThat(HOOKED).containsExactlyInAnyOrderElementsOf(viaHttp);

            HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body()).contains("\"status\":\"UP\"", "\"instanceId\":\"test-server\"",
                    "\"orders\":{\"status\":\"UP\",\"state\":\"RUNNING\"", "\"billing\":{\"status\":\"UP\"",
                    "\"kafka\":{\"type\":\"kafka\",\"status\":\"UP\"", "\"hook\":{\"type\":\"http\",\"status\":\"UP\"", "\"instanceId\":\"test-server/orders\"");
            HttpResponse<String> live = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(live.statusCode()).isEqualTo(200);

            server.close();
            assertThat(server.relays().values()).as("closed gracefully").noneMatch(dev.postbox.relay.Relay::isRunning);
        }
    }

    private static void writeOne(TestDatabase db, String no, String aggregate, String channel, String topic)
            throws Exception {
        Postbox postbox = Postbox.builder(db.dataSource()).source("test").build();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", aggregate)
                    .eventType("ORDER_CREATED").channel(channel).topic(topic).payload("{}").build());
            c.commit();
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>(rest);
        all.add(0, first);
        return all;
    }

    private static OutboxStatus status(TestDatabase db, String no) {
        return Postbox.builder(db.dataSource()).build().queries().outbox().byEventNo(no).orElseThrow().status();
    }

    /**
     * A destination that is down holds back only the events routed to it, and the later events of their aggregates
     * (per-aggregate order spans destinations); every other aggregate keeps flowing to the other destinations.
     */
    @Test
    void aDestinationThatIsDownHoldsBackOnlyItsEventsAndTheirAggregates() throws Exception {
        try (dev.postbox.testing.TcpProxy proxy = new dev.postbox.testing.TcpProxy(RABBIT_HOST, 5672)) {
            String yaml = yaml().replace("rabbit: {type: rabbitmq, host: " + RABBIT_HOST + "}",
                    "rabbit: {type: rabbitmq, host: 127.0.0.1, port: " + proxy.port() + "}")
                    .replace("relay: {poll-interval-max: 100ms}", "relay: {poll-interval-max: 100ms, retry-base: 200ms,"
                            + " retry-cap: 500ms}");
            ServerConfig config = new ConfigLoader(k -> null).parse("server.yml", yaml);
            try (RelayServer server = RelayServer.start(config)) {
                proxy.down();
                long cut = System.nanoTime();
                String held = "HELD-" + RUN;
                String behind = "BEHIND-" + RUN;
                String free = "FREE-" + RUN;
                writeOne(pg, held, "held-" + RUN, "RABBITMQ", OUTAGE_EXCHANGE); // to the destination that is down
                List<String> others = new ArrayList<>();
                for (int i = 0; i < 4; i++) { // more aggregates waiting for RabbitMQ: the outage is the destination's
                    others.add("HELD-" + RUN + "-" + i);
                    writeOne(pg, others.get(i), "held-" + RUN + "-" + i, "RABBITMQ", OUTAGE_EXCHANGE);
                }
                writeOne(pg, behind, "held-" + RUN, "KAFKA", OUTAGE_TOPIC);     // same aggregate, to Kafka: waits
                writeOne(pg, free, "free-" + RUN, "KAFKA", OUTAGE_TOPIC);       // another aggregate to Kafka: flows
                await(free + " PUBLISHED while RabbitMQ is down", () -> status(pg, free) == OutboxStatus.PUBLISHED);
                assertThat(status(pg, held)).isIn(OutboxStatus.FAILED, OutboxStatus.PENDING, OutboxStatus.PUBLISHING);
                assertThat(status(pg, behind)).as("waits behind its aggregate's earlier event (claimed in the same run at"
                        + " most, never sent)").isIn(OutboxStatus.PENDING, OutboxStatus.PUBLISHING);
                long inTopic = kafka.admin().listOffsets(Map.of(new TopicPartition(OUTAGE_TOPIC, 0), OffsetSpec.latest()))
                        .all().get().values().stream().mapToLong(r -> r.offset()).sum();
                assertThat(inTopic).as("only " + free + " reached Kafka").isEqualTo(1);

                // RabbitMQ stays away for 20 s: other aggregates keep flowing to Kafka all along
                int flowed = 0;
                while (System.nanoTime() - cut < Duration.ofSeconds(20).toNanos()) {
                    String more = "FREE-" + RUN + "-" + flowed;
                    writeOne(pg, more, "free-" + RUN + "-" + flowed, "KAFKA", OUTAGE_TOPIC);
                    await(more + " PUBLISHED while RabbitMQ is down", () -> status(pg, more) == OutboxStatus.PUBLISHED);
                    flowed++;
                    Thread.sleep(1_000);
                }
                Postbox reader = Postbox.builder(pg.dataSource()).build();
                for (String no : concat(held, others)) {
                    dev.postbox.outbox.OutboxRecord r = reader.queries().outbox().byEventNo(no).orElseThrow();
                    assertThat(r.status()).as(no + " held, not DEAD, after 20 s of a RabbitMQ outage with retries every"
                            + " 200-500 ms: the destination is down, not the event").isIn(OutboxStatus.FAILED,
                            OutboxStatus.PENDING, OutboxStatus.PUBLISHING);
                    assertThat(r.retryCount()).as(no + ": a retry or two counted, not one per backoff").isLessThanOrEqualTo(2);
                }
                assertThat(server.scrape()).contains("postbox_destination_down{destination=\"rabbit\"} 1.0");
                assertThat(status(pg, behind)).isIn(OutboxStatus.PENDING, OutboxStatus.PUBLISHING);
                assertThat(flowed).as("events to Kafka during the outage").isGreaterThanOrEqualTo(10);

                proxy.up();
                await(held + " and " + behind + " PUBLISHED once RabbitMQ is back", () ->
                        status(pg, held) == OutboxStatus.PUBLISHED && status(pg, behind) == OutboxStatus.PUBLISHED);
                await("every held event PUBLISHED", () -> others.stream()
                        .allMatch(no -> status(pg, no) == OutboxStatus.PUBLISHED));
                Postbox postbox = Postbox.builder(pg.dataSource()).build();
                assertThat(postbox.queries().outbox().byEventNo(held).orElseThrow().publishedTime())
                        .isBeforeOrEqualTo(postbox.queries().outbox().byEventNo(behind).orElseThrow().publishedTime());
            }
        }
    }

    @Test
    void aSourceWithoutPostboxTablesStopsTheStartNamingIt() {
        TestDatabase empty = TestDatabase.mariadb(null);
        try {
            String yaml = yaml().replace(maria.jdbcUrl(), empty.jdbcUrl());
            ServerConfig config = new ConfigLoader(k -> null).parse("server.yml", yaml);
            assertThatThrownBy(() -> RelayServer.start(config)).isInstanceOf(RelayServer.ServerStartException.class)
                    .hasMessageStartingWith("sources.billing: the Postbox tables biz_* are at version 0");
        } finally {
            empty.close();
        }
    }
}
