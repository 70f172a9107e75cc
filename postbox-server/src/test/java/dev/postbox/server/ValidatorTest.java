package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code postbox-server validate} against the real services: PostgreSQL with Postbox's schema, MariaDB without it, H2
 * with one tenant's tables and not the other's, an unreachable database, relay settings beyond Postbox's limits, the
 * in-process Kafka broker with one topic of two, RabbitMQ with one exchange of two, NATS with one stream of two subjects,
 * an HTTP endpoint up and one down. Each finding names its key.
 */
class ValidatorTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String RABBIT_HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final String NATS_URL = System.getProperty("postbox.test.nats.url", "nats://127.0.0.1:4222");
    static final String EXCHANGE = "postbox-validate-" + RUN;
    static final String STREAM = "POSTBOX_VALIDATE_" + RUN.toUpperCase(Locale.ROOT);
    static final String SUBJECT_PREFIX = "validate_" + RUN + ".";

    static TestDatabase pg;
    static TestDatabase maria;
    static TestDatabase h2;
    static KafkaCluster kafka;
    static HttpServer hook;
    static int closedPort;

    @BeforeAll
    static void services() throws Exception {
        pg = TestDatabase.postgres(null);
        Postbox.builder(pg.dataSource()).build().schema().install();
        maria = TestDatabase.mariadb(null);
        h2 = TestDatabase.h2();
        Postbox.builder(h2.dataSource()).tablePrefix("acme_").build().schema().install();
        kafka = KafkaCluster.shared(); // the test JVM's: this class's topic has its RUN in its name
        kafka.createTopicNamed("orders-" + RUN, 1);
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        try (com.rabbitmq.client.Connection c = f.newConnection(); Channel ch = c.createChannel()) {
            ch.exchangeDeclare(EXCHANGE, "topic", false, true, null);
        }
        try (Connection nats = Nats.connect(NATS_URL)) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECT_PREFIX + "orders")
                    .storageType(StorageType.Memory).build());
        }
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.start();
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try (Connection nats = Nats.connect(NATS_URL)) {
            nats.jetStreamManagement().deleteStream(STREAM);
        }
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        try (com.rabbitmq.client.Connection c = f.newConnection(); Channel ch = c.createChannel()) {
            ch.exchangeDelete(EXCHANGE);
        }
        hook.stop(0);
        pg.close();
        maria.close();
        h2.close();
    }

    private static String yaml() {
        return """
                sources:
                  pg:
                    jdbc-url: %s
                    username: %s
                    relay: {batch-size: 100}
                  maria:
                    jdbc-url: %s
                    username: %s
                  tenants:
                    jdbc-url: %s
                    username: sa
                    tenants: {acme: acme_, globex: globex_}
                  gone:
                    jdbc-url: jdbc:postgresql://127.0.0.1:%d/nothing
                    username: postgres
                  tight:
                    jdbc-url: %s
                    username: %s
                    relay: {poll-interval-min: 2s, poll-interval-max: 1s}
                destinations:
                  kafka: {type: kafka, bootstrap-servers: '%s'}
                  rabbit: {type: rabbitmq, host: %s}
                  nats: {type: nats, url: '%s', subject-prefix: '%s'}
                  hook: {type: http, url: 'http://127.0.0.1:%d/hook'}
                  down: {type: http, url: 'http://127.0.0.1:%d/hook'}
                routes:
                  - {source: pg, channel: KAFKA, topic: orders-%s, destination: kafka}
                  - {source: pg, channel: KAFKA, topic: missing-%s, destination: kafka}
                  - {source: maria, channel: RABBITMQ, topic: %s, destination: rabbit}
                  - {source: maria, channel: RABBITMQ, topic: no-such-exchange-%s, destination: rabbit}
                  - {source: tenants, channel: NATS, topic: orders, destination: nats}
                  - {source: tenants, channel: NATS, topic: payments, destination: nats}
                  - {source: gone, channel: HTTP, destination: hook}
                  - {source: tight, channel: HTTP, destination: down}
                """.formatted(pg.jdbcUrl(), pg.user(), maria.jdbcUrl(), maria.user(), h2.jdbcUrl(), closedPort,
                pg.jdbcUrl(), pg.user(), kafka.bootstrapServers(), RABBIT_HOST, NATS_URL, SUBJECT_PREFIX,
                hook.getAddress().getPort(), closedPort, RUN, RUN, EXCHANGE, RUN);
    }

    @Test
    void everySourceDestinationAndNamedTopicIsCheckedAndEachFindingNamesItsKey() {
        ServerConfig config = new ConfigLoader(k -> null).parse("validate.yml", yaml());
        List<Validator.Check> checks = new Validator(Duration.ofSeconds(5)).validate(config);
        Map<String, Validator.Check> byKey = checks.stream().collect(Collectors.toMap(Validator.Check::key, c -> c,
                (a, b) -> a, java.util.LinkedHashMap::new));
        String all = checks.stream().map(Object::toString).collect(Collectors.joining("\n"));

        assertThat(byKey.get("sources.pg").ok()).as(all).isTrue();
        assertThat(byKey.get("sources.pg").detail()).contains("schema version 10", "biz_outbox_event readable and writable");
        assertThat(byKey.get("sources.maria")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("no Postbox tables", "missing: ", "biz_outbox_event",
                        "V1__postbox_tables.sql");
        assertThat(byKey.get("sources.tenants.tenants.acme").ok()).as(all).isTrue();
        assertThat(byKey.get("sources.tenants.tenants.globex")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("globex_outbox_event");
        assertThat(byKey.get("sources.gone")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().startsWith("cannot connect to jdbc:postgresql://127.0.0.1:"
                        + closedPort);
        assertThat(byKey.get("sources.tight")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().startsWith("sources.tight.relay.poll-interval-max: must be at least");

        assertThat(byKey.get("destinations.kafka").ok()).as(all).isTrue();
        assertThat(byKey.get("routes[0].topic").ok()).as(all).isTrue();
        assertThat(byKey.get("routes[1].topic")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("no Kafka topic 'missing-" + RUN + "'");
        assertThat(byKey.get("destinations.rabbit").ok()).as(all).isTrue();
        assertThat(byKey.get("routes[2].topic").ok()).as(all).isTrue();
        assertThat(byKey.get("routes[3].topic")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("no RabbitMQ exchange 'no-such-exchange-" + RUN);
        assertThat(byKey.get("destinations.nats").ok()).as(all).isTrue();
        assertThat(byKey.get("routes[4].topic")).as(all).matches(Validator.Check::ok)
                .extracting(Validator.Check::detail).asString().contains(STREAM);
        assertThat(byKey.get("routes[5].topic")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("no JetStream stream captures subject '"
                        + SUBJECT_PREFIX + "payments'");
        assertThat(byKey.get("destinations.hook").ok()).as(all).isTrue();
        assertThat(byKey.get("destinations.down")).as(all).matches(c -> !c.ok())
                .extracting(Validator.Check::detail).asString().contains("not reachable");
    }

    private static int run(StringWriter out, StringWriter err, String... args) {
        CommandLine cmd = new CommandLine(new PostboxServerCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }

    @Test
    void theCommandPrintsEveryCheckAndExitsByTheWorstFinding(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yml");
        Files.writeString(bad, yaml());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertThat(run(out, err, "validate", bad.toString())).isEqualTo(PostboxServerCommand.CHECK_FAILED);
        assertThat(out.toString()).contains("OK    sources.pg: ", "FAIL  sources.maria: ", "FAIL  routes[1].topic: ",
                "not valid: ");

        Path good = dir.resolve("good.yml");
        Files.writeString(good, """
                sources:
                  pg: {jdbc-url: '%s', username: %s}
                destinations:
                  kafka: {type: kafka, bootstrap-servers: '%s'}
                routes:
                  - {source: pg, channel: KAFKA, topic: orders-%s, destination: kafka}
                """.formatted(pg.jdbcUrl(), pg.user(), kafka.bootstrapServers(), RUN));
        out = new StringWriter();
        assertThat(run(out, err, "validate", good.toString())).as(out.toString()).isZero();
        assertThat(out.toString()).contains("valid: 3 checks passed");

        Path broken = dir.resolve("broken.yml");
        Files.writeString(broken, "sources: {}\n");
        err = new StringWriter();
        assertThat(run(out, err, "validate", broken.toString())).isEqualTo(PostboxServerCommand.BAD_CONFIGURATION);
        assertThat(err.toString()).contains("sources: at least one source is required",
                "routes: at least one route is required");
    }
}
