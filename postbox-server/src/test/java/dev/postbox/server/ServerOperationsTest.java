package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TcpProxy;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's operations against the real services (PostgreSQL and MariaDB sources, RabbitMQ and NATS JetStream
 * destinations): Prometheus meters tagged by source and destination, pause / resume / drain of a source and of a
 * destination through the API (a paused destination's events wait without a retry counted), the API's token, each
 * source's console, and a source whose database cannot be reached, at start and later, while the other keeps flowing.
 */
class ServerOperationsTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final String EXCHANGE = "postbox-server-ops-" + RUN;
    static final String STREAM = "POSTBOX_SERVER_OPS_" + RUN.toUpperCase(Locale.ROOT);
    static final String SUBJECT = "server_ops_" + RUN + ".billing";
    static final String TOKEN = "a-token-of-more-than-sixteen-characters";
    static final AtomicInteger SEQ = new AtomicInteger();

    static TestDatabase pg;
    static TestDatabase maria;
    static com.rabbitmq.client.Connection rabbit;
    static Channel channel;
    final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void services() throws Exception {
        pg = TestDatabase.postgres(null);
        Postbox.builder(pg.dataSource()).build().schema().install();
        maria = TestDatabase.mariadb(null);
        Postbox.builder(maria.dataSource()).build().schema().install();
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        rabbit = f.newConnection("postbox-server-ops-test");
        channel = rabbit.createChannel();
        channel.exchangeDeclare(EXCHANGE, "topic", false, true, null);
        channel.queueDeclare(EXCHANGE, false, false, true, null);
        channel.queueBind(EXCHANGE, EXCHANGE, "#");
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECT)
                    .storageType(StorageType.Memory).build());
        }
        SourceRelay.reconnect = Duration.ofMillis(300);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        SourceRelay.reconnect = Duration.ofSeconds(5);
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().deleteStream(STREAM);
        }
        channel.queueDelete(EXCHANGE);
        channel.exchangeDelete(EXCHANGE);
        rabbit.close();
        pg.close();
        maria.close();
    }

    private static String yaml(String billingUrl, String extraServer) {
        return """
                server: {address: 127.0.0.1, port: 0, instance-id: ops%s}
                sources:
                  orders: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                  billing: {jdbc-url: '%s', username: %s, relay: {poll-interval-max: 100ms}}
                destinations:
                  rabbit: {type: rabbitmq, host: %s}
                  nats: {type: nats, url: '%s'}
                routes:
                  - {source: orders, channel: RABBITMQ, destination: rabbit}
                  - {source: billing, channel: NATS, destination: nats}
                """.formatted(extraServer, pg.jdbcUrl(), pg.user(), billingUrl, maria.user(), RABBIT_HOST, NATS_URL);
    }

    private static RelayServer start(String yaml) {
        ServerConfig config = new ConfigLoader(k -> null).parse("server.yml", yaml);
        return RelayServer.start(config);
    }

    /** {@code n} events of one new aggregate each to the orders' RabbitMQ route; their event numbers. */
    private static List<String> orders(int n) throws Exception {
        return write(pg, "RABBITMQ", EXCHANGE, n);
    }

    private static List<String> billing(int n) throws Exception {
        return write(maria, "NATS", SUBJECT, n);
    }

    private static List<String> write(TestDatabase db, String channel, String topic, int n) throws Exception {
        Postbox postbox = Postbox.builder(db.dataSource()).source("test").build();
        List<String> nos = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                String no = channel + "-" + RUN + "-" + SEQ.incrementAndGet();
                postbox.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", no)
                        .eventType("ORDER_CREATED").channel(channel).topic(topic).payload("{}").build());
                nos.add(no);
            }
            c.commit();
        }
        return nos;
    }

    private static OutboxRecord record(TestDatabase db, String no) {
        return Postbox.builder(db.dataSource()).build().queries().outbox().byEventNo(no).orElseThrow();
    }

    private static boolean allPublished(TestDatabase db, List<String> nos) {
        return nos.stream().allMatch(no -> record(db, no).status() == OutboxStatus.PUBLISHED);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("within 30 s: " + what).isTrue();
            Thread.sleep(50);
        }
    }

    private HttpResponse<String> get(RelayServer server, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(RelayServer server, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double sample(String scrape, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(name + "{" + labels + "} in the scrape:\n" + scrape).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void metricsCarryTheSourceAndTheDestination() throws Exception {
        try (RelayServer server = start(yaml(maria.jdbcUrl(), "-metrics"))) {
            List<String> o = orders(12);
            List<String> b = billing(7);
            await("all PUBLISHED", () -> allPublished(pg, o) && allPublished(maria, b));
            HttpResponse<String> r = get(server, "/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            String s = r.body();
            assertThat(sample(s, "postbox_publish_outcomes_total",
                    "channel=\"RABBITMQ\",destination=\"rabbit\",outcome=\"published\",source=\"orders\"")).isEqualTo(12);
            assertThat(sample(s, "postbox_publish_outcomes_total",
                    "channel=\"NATS\",destination=\"nats\",outcome=\"published\",source=\"billing\"")).isEqualTo(7);
            assertThat(sample(s, "postbox_destination_sends_total", "destination=\"rabbit\",outcome=\"published\""))
                    .isEqualTo(12);
            assertThat(sample(s, "postbox_destination_sends_total", "destination=\"nats\",outcome=\"published\""))
                    .isEqualTo(7);
            assertThat(sample(s, "postbox_destination_in_flight", "destination=\"nats\"")).isZero();
            assertThat(s).contains("postbox_publish_latency_seconds_bucket{channel=\"NATS\",destination=\"nats\",source=\"billing\",le=");
            await("the backlog gauges read", () -> quietly(() -> sample(server.scrape(), "postbox_outbox_backlog",
                    "scope=\"table\",source=\"orders\",status=\"pending\"")) == 0.0);
            assertThat(sample(server.scrape(), "postbox_outbox_dead", "scope=\"table\",source=\"billing\"")).isZero();
        }
    }

    private static double quietly(java.util.concurrent.Callable<Double> c) {
        try {
            return c.call();
        } catch (Throwable e) {
            return Double.NaN;
        }
    }

    @Test
    void aSourcePausesResumesAndDrainsThroughTheApi() throws Exception {
        try (RelayServer server = start(yaml(maria.jdbcUrl(), "-pause"))) {
            HttpResponse<String> paused = post(server, "/api/sources/orders/pause", null);
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
            assertThat(paused.body()).contains("\"state\":\"PAUSED\"");
            assertThat(server.relays()).containsOnlyKeys("billing");
            List<String> held = orders(5);
            List<String> flowing = billing(5);
            await("billing PUBLISHED while orders is paused", () -> allPublished(maria, flowing));
            Thread.sleep(500);
            assertThat(held).allMatch(no -> record(pg, no).status() == OutboxStatus.PENDING);
            assertThat(get(server, "/health/ready").statusCode()).as("paused on purpose is ready").isEqualTo(200);

            assertThat(post(server, "/api/sources/orders/resume", null).body()).contains("\"state\":\"RUNNING\"");
            await("orders PUBLISHED once resumed", () -> allPublished(pg, held));

            post(server, "/api/sources/orders/pause", null);
            List<String> backlog = orders(30);
            HttpResponse<String> drain = post(server, "/api/sources/orders/drain", null);
            assertThat(drain.statusCode()).as(drain.body()).isEqualTo(200);
            assertThat(drain.body()).contains("\"state\":\"DRAINING\"");
            await("drained, then paused", () -> quietlyGet(server, "/api/sources/orders").contains("\"state\":\"PAUSED\""));
            assertThat(allPublished(pg, backlog)).isTrue();
            assertThat(server.relays()).doesNotContainKey("orders");

            HttpResponse<String> wrong = post(server, "/api/sources/orders/pause", null);
            assertThat(wrong.statusCode()).isEqualTo(200); // pausing a paused source is a no-op
            HttpResponse<String> conflict = post(server, "/api/sources/billing/resume", null);
            assertThat(conflict.statusCode()).as("resuming a running source").isEqualTo(200);
            HttpResponse<String> unknown = post(server, "/api/sources/nope/pause", null);
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(unknown.body()).contains("no source named 'nope'", "orders", "billing");
            assertThat(post(server, "/api/sources/orders/explode", null).statusCode()).isEqualTo(404);
            assertThat(get(server, "/api/sources/orders/pause").statusCode()).isEqualTo(405);
        }
    }

    private String quietlyGet(RelayServer server, String path) {
        try {
            return get(server, path).body();
        } catch (Exception e) {
            return "";
        }
    }

    @Test
    void aPausedDestinationHoldsItsEventsWithoutCountingRetriesWhileTheOtherFlows() throws Exception {
        String yaml = yaml(maria.jdbcUrl(), "-destination").replace("relay: {poll-interval-max: 100ms}",
                "relay: {poll-interval-max: 100ms, retry-base: 100ms, retry-cap: 200ms}");
        try (RelayServer server = start(yaml)) {
            HttpResponse<String> paused = post(server, "/api/destinations/rabbit/pause", null);
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
            assertThat(paused.body()).contains("\"status\":\"PAUSED\"");
            List<String> held = orders(3);
            List<String> flowing = billing(3);
            await("billing PUBLISHED to NATS while RabbitMQ is paused", () -> allPublished(maria, flowing));
            await("the held events tried and held back", () -> held.stream()
                    .allMatch(no -> record(pg, no).status() == OutboxStatus.FAILED));
            Thread.sleep(5_000); // a few of the paused destination's waits (2 s): still no retry counted
            for (String no : held) {
                OutboxRecord r = record(pg, no);
                assertThat(r.status()).as(no).isEqualTo(OutboxStatus.FAILED);
                assertThat(r.retryCount()).as(no + ": no retry counted").isZero();
                assertThat(r.failReason()).contains("destination 'rabbit' is paused");
            }
            assertThat(sample(server.scrape(), "postbox_destination_paused", "destination=\"rabbit\"")).isEqualTo(1);
            assertThat(sample(server.scrape(), "postbox_destination_sends_total",
                    "destination=\"rabbit\",outcome=\"not_sent\"")).isGreaterThanOrEqualTo(6);

            HttpResponse<String> drained = post(server, "/api/destinations/rabbit/drain", null);
            assertThat(drained.statusCode()).isEqualTo(200);
            assertThat(drained.body()).contains("\"status\":\"PAUSED\"", "\"inFlight\":0");
            assertThat(post(server, "/api/destinations/rabbit/resume", null).body()).contains("\"status\":\"UP\"");
            await("the held events PUBLISHED once resumed", () -> allPublished(pg, held));
            assertThat(channel.messageCount(EXCHANGE)).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void withATokenTheApiAnswersOnlyItsBearer() throws Exception {
        try (RelayServer server = start(yaml(maria.jdbcUrl(), ", api-token: " + TOKEN))) {
            HttpResponse<String> none = post(server, "/api/sources/orders/pause", null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"postbox-server\"");
            assertThat(post(server, "/api/sources/orders/pause", TOKEN + "x").statusCode()).isEqualTo(401);
            assertThat(get(server, "/api/sources").statusCode()).isEqualTo(401);
            assertThat(server.relays()).containsKey("orders");
            HttpResponse<String> ok = post(server, "/api/sources/orders/pause", TOKEN);
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            assertThat(server.relays()).doesNotContainKey("orders");
            assertThat(get(server, "/health/ready").statusCode()).as("health needs no token").isEqualTo(200);
        }
    }

    @Test
    void eachSourceHasItsConsole() throws Exception {
        try (RelayServer server = start(yaml(maria.jdbcUrl(), "-console"))) {
            List<String> o = orders(2);
            await("PUBLISHED", () -> allPublished(pg, o));
            HttpResponse<String> index = get(server, "/");
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(index.body()).contains("href=\"/console/orders/\"", "href=\"/console/billing/\"");
            HttpResponse<String> ui = get(server, "/console/orders/");
            assertThat(ui.statusCode()).isEqualTo(200);
            assertThat(ui.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
            HttpResponse<String> event = get(server, "/console/orders/api/events/outbox/" + o.get(0));
            assertThat(event.statusCode()).as(event.body()).isEqualTo(200);
            assertThat(event.body()).contains(o.get(0), "PUBLISHED");
            HttpResponse<String> other = get(server, "/console/billing/api/events/outbox/" + o.get(0));
            assertThat(other.statusCode()).as("billing's console reads billing's database").isEqualTo(404);
            assertThat(get(server, "/console/ordersx/").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void aSourceWhoseDatabaseCannotBeReachedWaitsWhileTheOtherFlows() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 3306)) {
            proxy.down();
            String viaProxy = maria.jdbcUrl().replace(":3306/", ":" + proxy.port() + "/");
            assertThat(viaProxy).isNotEqualTo(maria.jdbcUrl());
            try (RelayServer server = start(yaml(viaProxy + (viaProxy.contains("?") ? "&" : "?") + "connectTimeout=1000",
                    "-down"))) {
                HttpResponse<String> ready = get(server, "/health/ready");
                assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
                assertThat(ready.body()).contains("\"billing\":{\"status\":\"DOWN\",\"state\":\"WAITING\"",
                        "database not reachable", "\"orders\":{\"status\":\"UP\",\"state\":\"RUNNING\"");
                List<String> o = orders(5);
                List<String> b = billing(5);
                await("orders PUBLISHED while billing's database is away", () -> allPublished(pg, o));
                assertThat(record(maria, b.get(0)).status()).isEqualTo(OutboxStatus.PENDING);

                proxy.up();
                await("billing relayed once its database answers", () -> allPublished(maria, b));
                await("ready", () -> quietlyStatus(server) == 200);

                proxy.down(); // and away again while running
                List<String> o2 = orders(5);
                List<String> b2 = billing(5);
                await("orders still flowing", () -> allPublished(pg, o2));
                await("billing DOWN in readiness", () -> quietlyStatus(server) == 503);
                assertThat(quietlyGet(server, "/health/ready")).contains("\"billing\":{\"status\":\"DOWN\"");
                proxy.up();
                await("billing relayed again", () -> allPublished(maria, b2));
            }
        }
    }

    private int quietlyStatus(RelayServer server) {
        try {
            return get(server, "/health/ready").statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
