package dev.postbox.server;

import dev.postbox.Postbox;
import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad configuration files given to the real process, {@code run FILE} or {@code validate FILE}: each exits 2 having
 * printed on standard error the file, how many problems, and the problem with its exact key, and started nothing (the
 * source's database, real and ready, keeps its event PENDING and sees no relay). Then one good file whose world is
 * wrong (a Kafka topic and a source's tables missing): {@code validate} exits 1 naming both. Output:
 * target/bad-config/.
 */
class BadConfigProcessTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final Path DIR = Path.of("target", "bad-config", RUN);
    static final String UNSET = "POSTBOX_TEST_UNSET_" + RUN.toUpperCase(java.util.Locale.ROOT);
    static final String BATCH = "POSTBOX_TEST_BATCH_" + RUN.toUpperCase(java.util.Locale.ROOT);

    static TestDatabase pg;
    static Postbox postbox;

    @BeforeAll
    static void database() throws Exception {
        Files.createDirectories(DIR);
        pg = TestDatabase.postgres(null);
        postbox = Postbox.builder(pg.dataSource()).source("bad-config-test").build();
        postbox.schema().install();
        try (java.sql.Connection c = pg.dataSource().getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("WAITING-" + RUN).aggregate("ORDER", "o-1")
                    .eventType("ORDER_CREATED").channel("RABBITMQ").topic("postbox-bad-config-" + RUN).payload("{}")
                    .build());
            c.commit();
        }
    }

    @AfterAll
    static void dropDatabase() {
        pg.close();
    }

    /** A good file (its source is the real database above); each case breaks one thing of it. */
    private static String good() {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                sources:
                  orders:
                    jdbc-url: '%s'
                    username: %s
                    relay:
                      batch-size: 100
                      lease-duration: 2s
                destinations:
                  rabbit:
                    type: rabbitmq
                    host: 127.0.0.1
                    max-in-flight: 64
                  kafka:
                    type: kafka
                    bootstrap-servers: 127.0.0.1:9092
                routes:
                  - {source: orders, channel: RABBITMQ, destination: rabbit}
                  - {source: orders, channel: KAFKA, destination: kafka}
                """.formatted(pg.jdbcUrl(), pg.user());
    }

    private static String without(String line) {
        String g = good();
        assertThat(g).contains(line + "\n");
        return g.replace(line + "\n", "");
    }

    private static String with(String from, String to) {
        String g = good();
        assertThat(g).contains(from);
        return g.replace(from, to);
    }

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of("run", "missing-jdbc-url", without("    jdbc-url: '" + pg.jdbcUrl() + "'"), 1,
                        "sources.orders.jdbc-url: is required"),
                Arguments.of("validate", "kafka-without-servers", without("    bootstrap-servers: 127.0.0.1:9092"), 1,
                        "destinations.kafka.bootstrap-servers: is required"),
                Arguments.of("run", "route-to-undefined-destination", with("destination: kafka}", "destination: kafak}"),
                        1, "routes[1].destination: no destination named 'kafak' (destinations: rabbit, kafka)"),
                Arguments.of("validate", "route-from-undefined-source", with("source: orders, channel: KAFKA",
                        "source: ordres, channel: KAFKA"), 1, "routes[1].source: no source named 'ordres' (sources: orders)"),
                Arguments.of("run", "unknown-key", with("lease-duration: 2s", "lease: 2s"), 1,
                        "sources.orders.relay.lease: unknown key (expected one of "),
                Arguments.of("validate", "bad-duration", with("lease-duration: 2s", "lease-duration: 2 seconds"), 1,
                        "sources.orders.relay.lease-duration: not a duration (was '2 seconds'): write 500ms, 30s, 5m,"
                                + " 1h, 2d or ISO-8601 (PT30S)"),
                Arguments.of("run", "negative-max-in-flight", with("max-in-flight: 64", "max-in-flight: -5"), 1,
                        "destinations.rabbit.max-in-flight: must be between 1 and 100000 (was -5)"),
                Arguments.of("run", "undefined-environment-variable", with("    username: ", "    password: ${" + UNSET
                        + "}\n    username: "), 1, "sources.orders.password: environment variable " + UNSET
                        + " is not set (give a default with ${" + UNSET + ":default})"),
                Arguments.of("run", "relay-setting-out-of-range-from-the-environment", with("batch-size: 100",
                        "batch-size: ${" + BATCH + "}"), 1, "sources.orders.relay.batch-size: must be between 1 and 5000"
                        + " (was 0)"),
                Arguments.of("validate", "malformed-yaml", with("    host: 127.0.0.1", "    host: [127.0.0.1"), 1,
                        "not valid YAML at line 15, column 18: expected ',' or ']', but got :"),
                Arguments.of("run", "duplicate-key", with("  port: 0\n", "  port: 0\n  port: 8088\n"), 1,
                        "not valid YAML at line 4, column 3: found duplicate key port"),
                Arguments.of("validate", "empty-file", "", 1,
                        "(the file): is empty: it needs sources, destinations and routes"),
                Arguments.of("run", "channel-routed-twice", good() + "  - {source: orders, channel: RABBITMQ, destination:"
                        + " kafka}\n", 1, "routes[2]: channel RABBITMQ of source orders is routed twice (also routes[0]):"
                        + " give it one destination"),
                Arguments.of("validate", "unknown-destination-type", with("type: rabbitmq", "type: amqp"), 1,
                        "destinations.rabbit.type: must be one of kafka, rabbitmq, nats, http (was 'amqp')"),
                Arguments.of("run", "port-out-of-range", with("port: 0", "port: 70000"), 1,
                        "server.port: must be between 0 and 65535 (was 70000)"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badFiles")
    void aBadFileExits2NamingItsKeyAndStartsNothing(String command, String name, String yaml, int problems,
                                                     String expected) throws Exception {
        Path file = DIR.resolve(name + ".yml");
        Files.writeString(file, yaml);
        String stderr = exits2(command, name, file.toString());
        assertThat(stderr).as(name + ": standard error").contains(file + ": " + problems + " problem"
                + (problems == 1 ? "\n" : "s\n")).contains("  " + expected);
    }

    @Test
    void threeProblemsAreAllNamed() throws Exception {
        String yaml = with("batch-size: 100", "batch-size: 0").replace("destination: kafka}", "destination: kafak}")
                .replace("jdbc-url: 'jdbc:postgresql:", "jdbc-url: 'jdbc:oracle:");
        Path file = DIR.resolve("three-problems.yml");
        Files.writeString(file, yaml);
        assertThat(exits2("run", "three-problems", file.toString())).contains(file + ": 3 problems\n",
                "  sources.orders.relay.batch-size: must be between 1 and 5000 (was 0)",
                "  routes[1].destination: no destination named 'kafak'", "  sources.orders.jdbc-url: must start with");
    }

    @Test
    void aMissingFileExits2NamingIt() throws Exception {
        Path missing = DIR.resolve("no-such-file.yml");
        assertThat(exits2("run", "missing-file", missing.toString())).contains(missing + ": 1 problem\n",
                "  cannot be read: java.nio.file.NoSuchFileException: " + missing);
    }

    /**
     * A relay setting beyond Postbox's own limits (a lease under its 300 ms minimum, more than 8 batches in flight) is a
     * bad file like any other: exit 2 naming the key, before any database or destination is touched.
     */
    @Test
    void relaySettingsBeyondPostboxsLimitsAreBadFiles() throws Exception {
        Path file = DIR.resolve("relay-limits.yml");
        Files.writeString(file, with("lease-duration: 2s", "lease-duration: 100ms\n      in-flight-batches: 9"));
        assertThat(exits2("run", "relay-limits", file.toString())).contains(file + ": 2 problems\n",
                "  sources.orders.relay.lease-duration: must be at least 300ms (was 100ms)",
                "  sources.orders.relay.in-flight-batches: must be between 1 and 8 (was 9)");
    }

    /**
     * Runs {@code postbox-server command file} (with {@value #BATCH}=0 in its environment) and asserts it exits 2 within
     * 30 s without starting: no "running" line, the database's event still PENDING and untried, no relay recorded.
     * Returns its standard error.
     */
    private static String exits2(String command, String name, String file) throws Exception {
        try (ServerProcess p = ServerProcess.start(command + " " + name, DIR.resolve(name + ".out"),
                DIR.resolve(name + ".err"), Map.of(BATCH, "0"), command, file)) {
            int exit = p.awaitExit(Duration.ofSeconds(30));
            String report = name + " (" + command + "): exit " + exit + "%nstdout:%n" + p.log() + "%nstderr:%n"
                    + p.stderr();
            assertThat(exit).as(report).isEqualTo(PostboxServerCommand.BAD_CONFIGURATION);
            assertThat(p.log()).as(report).doesNotContain("postbox-server running", "OK    ", "FAIL  ");
            OutboxRecord waiting = postbox.queries().outbox().byEventNo("WAITING-" + RUN).orElseThrow();
            assertThat(waiting.status()).as(name + ": nothing relayed").isEqualTo(OutboxStatus.PENDING);
            assertThat(waiting.retryCount()).as(name + ": nothing tried").isZero();
            assertThat(relayInstances()).as(name + ": no relay started").isZero();
            return p.stderr();
        }
    }

    private static long relayInstances() throws Exception {
        try (java.sql.Connection c = pg.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + postbox.tables().outbox()
                     .replace("outbox_event", "relay_instance"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A file that is fine but names a Kafka topic that does not exist and a source without Postbox's tables:
     * {@code validate} exits 1 and names both, each as a failed check with its key.
     */
    @Test
    void validateExits1NamingAMissingTopicAndASourceWithoutTables() throws Exception {
        KafkaCluster kafka = KafkaCluster.shared(); // the test JVM's: the topic has this class's RUN in its name
        try (TestDatabase empty = TestDatabase.mariadb(null)) {
            kafka.createTopicNamed("present-" + RUN, 1);
            Path file = DIR.resolve("missing-topic-and-tables.yml");
            Files.writeString(file, """
                    sources:
                      orders: {jdbc-url: '%s', username: %s}
                      billing: {jdbc-url: '%s', username: %s}
                    destinations:
                      kafka: {type: kafka, bootstrap-servers: '%s'}
                    routes:
                      - {source: orders, channel: KAFKA, topic: present-%s, destination: kafka}
                      - {source: billing, channel: KAFKA, topic: missing-%s, destination: kafka}
                    """.formatted(pg.jdbcUrl(), pg.user(), empty.jdbcUrl(), empty.user(), kafka.bootstrapServers(),
                    RUN, RUN));
            try (ServerProcess p = ServerProcess.start("validate", DIR.resolve("missing-topic-and-tables.out"),
                    DIR.resolve("missing-topic-and-tables.err"), Map.of(), "validate", "--timeout", "30s", file.toString())) {
                int exit = p.awaitExit(Duration.ofSeconds(60));
                String out = p.log();
                assertThat(exit).as("exit of validate; stdout:%n%s%nstderr:%n%s", out, p.stderr())
                        .isEqualTo(PostboxServerCommand.CHECK_FAILED);
                assertThat(out).contains(file + ": 2 sources, 1 destinations, 2 routes",
                        "tracing off: nothing asks for it; tracing.enabled: true, OTEL_TRACES_EXPORTER or",
                        "OK    sources.orders: ", "FAIL  sources.billing: no Postbox tables in ",
                        "OK    destinations.kafka: ", "OK    routes[0].topic: Kafka topic present-" + RUN + " exists",
                        "FAIL  routes[1].topic: no Kafka topic 'missing-" + RUN + "' in destinations.kafka",
                        "not valid: 2 of 5 checks failed");
            }
        }
    }
}
