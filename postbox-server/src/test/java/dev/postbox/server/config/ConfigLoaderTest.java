package dev.postbox.server.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The server's configuration file: a full one read as written, and bad ones each failing with the key named. */
class ConfigLoaderTest {

    private static final Map<String, String> ENV = Map.of("PG_PASSWORD", "s3cret", "RABBIT_HOST", "rabbit.internal");

    private static final String GOOD = """
            server:
              port: 9090
              instance-id: relay-a
            sources:
              orders:
                jdbc-url: jdbc:postgresql://127.0.0.1:5432/orders
                username: relay
                password: ${PG_PASSWORD}
                pool-size: 3
                relay:
                  batch-size: 200
                  lease-duration: 30s
                  poll-interval-max: 500ms
                  ordered: true
                  unordered-topics: [audit, metrics]
                  heartbeat-interval: 30s
              billing:
                jdbc-url: jdbc:mariadb://127.0.0.1:3306/billing
                username: root
                tenants:
                  acme: acme_
                  globex: globex_
            destinations:
              rabbit:
                type: rabbitmq
                host: ${RABBIT_HOST}
                password: ${RABBIT_PASSWORD:guest}
                max-in-flight: 64
                breaker-failures: 3
                breaker-probe-interval: 5s
              stream:
                type: nats
                url: nats://127.0.0.1:4222, nats://127.0.0.1:4223
                subject-prefix: shop.
              kafka:
                type: kafka
                bootstrap-servers: 127.0.0.1:9092
                producer:
                  compression.type: lz4
              hooks:
                type: http
                url: https://hooks.example.com/postbox
                secret: $${not-a-variable}
                request-timeout: PT5S
            routes:
              - {source: orders, channel: RABBITMQ, destination: rabbit}
              - {source: orders, channel: MQ, topic: order.event, destination: kafka}
              - {source: orders, channel: MQ, destination: stream}
              - {source: billing, channel: HTTP, destination: hooks}
            """;

    private static ServerConfig load(String yaml) {
        return new ConfigLoader(ENV::get).parse("test.yml", yaml);
    }

    private static List<String> problems(String yaml) {
        return catchThrowableOfType(ConfigException.class, () -> load(yaml)).problems();
    }

    @Test
    void aFullFileIsReadAsWritten() {
        ServerConfig c = load(GOOD);
        assertThat(c.server()).isEqualTo(new ServerConfig.Server("0.0.0.0", 9090, "relay-a"));
        assertThat(c.sources()).containsOnlyKeys("orders", "billing");
        ServerConfig.Source orders = c.sources().get("orders");
        assertThat(orders.password()).as("from the environment").isEqualTo("s3cret");
        assertThat(orders.tablePrefix()).isEqualTo("biz_");
        assertThat(orders.poolSize()).isEqualTo(3);
        assertThat(orders.relay().batchSize()).isEqualTo(200);
        assertThat(orders.relay().leaseDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(orders.relay().pollIntervalMax()).isEqualTo(Duration.ofMillis(500));
        assertThat(orders.relay().ordered()).isTrue();
        assertThat(orders.relay().unorderedTopics()).containsExactly("audit", "metrics");
        assertThat(orders.relay().sendTimeout()).as("not set: Postbox's default").isNull();
        assertThat(orders.relay().heartbeatInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(orders.bulkheads()).extracting(ServerConfig.Bulkhead::name).containsExactly("orders");

        ServerConfig.Source billing = c.sources().get("billing");
        assertThat(billing.bulkheads()).extracting(ServerConfig.Bulkhead::name, ServerConfig.Bulkhead::tablePrefix)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("billing[acme]", "acme_"),
                        org.assertj.core.groups.Tuple.tuple("billing[globex]", "globex_"));
        assertThat(billing.poolSize()).isEqualTo(ConfigLoader.DEFAULT_SOURCE_POOL);

        assertThat(c.destinations().get("rabbit")).isEqualTo(new ServerConfig.RabbitMq("rabbit", 64,
                new ServerConfig.Breaker(3, Duration.ofSeconds(5)), "rabbit.internal", 5672, "guest", "guest", "/"));
        assertThat(c.destinations().get("stream")).isEqualTo(new ServerConfig.Nats("stream",
                ConfigLoader.DEFAULT_MAX_IN_FLIGHT, ServerConfig.Breaker.DEFAULT, List.of("nats://127.0.0.1:4222", "nats://127.0.0.1:4223"), "shop."));
        assertThat(((ServerConfig.Kafka) c.destinations().get("kafka")).producer()).containsEntry("compression.type", "lz4");
        ServerConfig.Http hooks = (ServerConfig.Http) c.destinations().get("hooks");
        assertThat(hooks.secret()).as("$${ is a literal ${").isEqualTo("${not-a-variable}");
        assertThat(hooks.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.routes()).extracting(ServerConfig.Route::destination).containsExactly("rabbit", "kafka", "stream", "hooks");
        assertThat(c.routes().get(1).topicFilter()).contains("order.event");
    }

    @Test
    void aFileOnDiskIsReadAndAMissingOneIsNamed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("server.yml");
        Files.writeString(file, GOOD);
        assertThat(new ConfigLoader(ENV::get).load(file).sources()).hasSize(2);
        Path missing = dir.resolve("nope.yml");
        assertThatThrownBy(() -> new ConfigLoader(ENV::get).load(missing)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(missing + ": 1 problem").hasMessageContaining("cannot be read");
    }

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of("an empty file", "", "(the file): is empty"),
                Arguments.of("not YAML", "sources: [a, b\nroutes: x", "not valid YAML at line"),
                Arguments.of("a duplicate key", GOOD.replace("  port: 9090\n", "  port: 9090\n  port: 9091\n"),
                        "not valid YAML at line 3"),
                Arguments.of("an unknown top-level key", GOOD + "sourcez: {}\n", "sourcez: unknown key (expected one of"),
                Arguments.of("a misspelt source key", GOOD.replace("jdbc-url: jdbc:mariadb", "jdbc_url: jdbc:mariadb"),
                        "sources.billing.jdbc_url: unknown key"),
                Arguments.of("a source without its URL", GOOD.replace("    jdbc-url: jdbc:mariadb://127.0.0.1:3306/billing\n", ""),
                        "sources.billing.jdbc-url: is required"),
                Arguments.of("a URL of another database", GOOD.replace("jdbc:mariadb://", "jdbc:oracle:thin:@"),
                        "sources.billing.jdbc-url: must start with jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:, jdbc:h2:"),
                Arguments.of("a bad table prefix", GOOD.replace("acme: acme_", "acme: Acme-"),
                        "sources.billing.tenants.acme: must be a lower-case SQL identifier"),
                Arguments.of("two tenants on one table set", GOOD.replace("globex: globex_", "globex: acme_"),
                        "sources.billing.tenants.globex: has the table prefix 'acme_' of tenant acme"),
                Arguments.of("a batch size out of range", GOOD.replace("batch-size: 200", "batch-size: 0"),
                        "sources.orders.relay.batch-size: must be between 1 and 5000 (was 0)"),
                Arguments.of("a lease shorter than Postbox's least", GOOD.replace("lease-duration: 30s", "lease-duration: 100ms"),
                        "sources.orders.relay.lease-duration: must be at least 300ms (was 100ms)"),
                Arguments.of("more batches in flight than Postbox allows", GOOD.replace("batch-size: 200",
                        "batch-size: 200\n      in-flight-batches: 9"),
                        "sources.orders.relay.in-flight-batches: must be between 1 and 8 (was 9)"),
                Arguments.of("a breaker that opens at the first failure", GOOD.replace("breaker-failures: 3", "breaker-failures: 1"),
                        "destinations.rabbit.breaker-failures: must be between 2 and 1000 (was 1)"),
                Arguments.of("a probe interval too short", GOOD.replace("breaker-probe-interval: 5s", "breaker-probe-interval: 10ms"),
                        "destinations.rabbit.breaker-probe-interval: must be from 100ms to 10m (was 10ms)"),
                Arguments.of("a heartbeat that is no duration", GOOD.replace("heartbeat-interval: 30s", "heartbeat-interval: often"),
                        "sources.orders.relay.heartbeat-interval: not a duration (was 'often')"),
                Arguments.of("a duration that is none", GOOD.replace("lease-duration: 30s", "lease-duration: 30 parsecs"),
                        "sources.orders.relay.lease-duration: not a duration (was '30 parsecs')"),
                Arguments.of("a boolean that is none", GOOD.replace("ordered: true", "ordered: maybe"),
                        "sources.orders.relay.ordered: must be true or false (was 'maybe')"),
                Arguments.of("a missing secret", GOOD.replace("${PG_PASSWORD}", "${PG_PASSWORD_TYPO}"),
                        "sources.orders.password: environment variable PG_PASSWORD_TYPO is not set"),
                Arguments.of("an unknown destination type", GOOD.replace("type: rabbitmq", "type: sqs"),
                        "destinations.rabbit.type: must be one of kafka, rabbitmq, nats, http (was 'sqs')"),
                Arguments.of("a destination key of another type", GOOD.replace("subject-prefix: shop.", "bootstrap-servers: x"),
                        "destinations.stream.bootstrap-servers: unknown key"),
                Arguments.of("a Kafka destination without servers", GOOD.replace("    bootstrap-servers: 127.0.0.1:9092\n", ""),
                        "destinations.kafka.bootstrap-servers: is required"),
                Arguments.of("a NATS URL of another scheme", GOOD.replace("nats://127.0.0.1:4223", "http://127.0.0.1:4223"),
                        "destinations.stream.url: each server must be nats://host:port"),
                Arguments.of("an HTTP URL without scheme", GOOD.replace("https://hooks.example.com/postbox", "hooks.example.com"),
                        "destinations.hooks.url: must be an http:// or https:// URL"),
                Arguments.of("a port out of range", GOOD.replace("port: 9090", "port: 70000"),
                        "server.port: must be between 0 and 65535 (was 70000)"),
                Arguments.of("a route to an unknown destination", GOOD.replace("destination: hooks", "destination: hookz"),
                        "routes[3].destination: no destination named 'hookz' (destinations: rabbit, stream, kafka, hooks)"),
                Arguments.of("a route from an unknown source", GOOD.replace("source: billing", "source: biling"),
                        "routes[3].source: no source named 'biling'"),
                Arguments.of("a channel routed twice", GOOD + "  - {source: orders, channel: RABBITMQ, destination: stream}\n",
                        "routes[4]: channel RABBITMQ of source orders is routed twice (also routes[0])"),
                Arguments.of("a source nothing reads", GOOD.replace("  - {source: billing, channel: HTTP, destination: hooks}\n", ""),
                        "sources.billing: no route reads from it"),
                Arguments.of("routes that are not a list", GOOD.substring(0, GOOD.indexOf("routes:")) + "routes: {a: b}\n",
                        "routes: must be a list of routes"),
                Arguments.of("no destinations", GOOD.replaceAll("(?s)destinations:.*?routes:", "routes:"),
                        "destinations: at least one destination is required"),
                Arguments.of("an API token too short to guess at", GOOD.replace("instance-id: relay-a",
                        "instance-id: relay-a\n  api-token: short"), "server.api-token: must be at least 16 characters (was 5)"),
                Arguments.of("JSON logs that are not a boolean", GOOD.replace("instance-id: relay-a",
                        "instance-id: relay-a\n  json-logs: yes please"), "server.json-logs: must be true or false"),
                Arguments.of("a console user with a password", GOOD.replace("instance-id: relay-a", "instance-id: relay-a\n"
                        + "  console: {users: {ann: {password-hash: hunter2, role: admin}}}"),
                        "server.console.users.ann.password-hash: must be a hash from 'postbox-server hash-password'"),
                Arguments.of("a console user of no role", GOOD.replace("instance-id: relay-a", "instance-id: relay-a\n"
                        + "  console: {users: {ann: {password-hash: 'pbkdf2-sha256$1$a$b', role: boss}}}"),
                        "server.console.users.ann.role: must be viewer, operator or admin (was 'boss')"),
                Arguments.of("an unknown console key", GOOD.replace("instance-id: relay-a", "instance-id: relay-a\n"
                        + "  console: {enable: false}"), "server.console.enable: unknown key"),
                Arguments.of("a source that is a list", GOOD.replace("  orders:\n    jdbc-url", "  orders: [1]\n  x:\n    jdbc-url"),
                        "sources.orders: must be a map of keys to values (was a list)"),
                Arguments.of("an unknown tracing key", GOOD + "tracing: {enable: true}\n",
                        "tracing.enable: unknown key (expected one of enabled, otlp-endpoint, sampler-ratio, service-name)"),
                Arguments.of("tracing enabled that is not a boolean", GOOD + "tracing: {enabled: 'on please'}\n",
                        "tracing.enabled: must be true or false (was 'on please')"),
                Arguments.of("an OTLP endpoint without scheme", GOOD + "tracing: {otlp-endpoint: 'collector:4318'}\n",
                        "tracing.otlp-endpoint: must be an http:// or https:// URL with a host (was 'collector:4318')"),
                Arguments.of("a sampler ratio above 1", GOOD + "tracing: {sampler-ratio: 10}\n",
                        "tracing.sampler-ratio: must be a number from 0 to 1 (was '10')"),
                Arguments.of("a sampler ratio that is a percentage", GOOD + "tracing: {sampler-ratio: 10%}\n",
                        "tracing.sampler-ratio: must be a number from 0 to 1 (was '10%')"),
                Arguments.of("a blank service name", GOOD + "tracing: {service-name: ' '}\n",
                        "tracing.service-name: must not be blank"),
                Arguments.of("a tracing section that is a list", GOOD + "tracing: [otlp]\n",
                        "tracing: must be a map of keys to values (was a list)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void aBadFileFailsNamingTheKeyAndTheProblem(String what, String yaml, String expected) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> load(yaml));
        assertThat(e).as(what + ": a ConfigException").isNotNull();
        assertThat(e.problems()).as(what).anySatisfy(p -> assertThat(p).contains(expected));
        assertThat(e.getMessage()).startsWith("test.yml: ").contains(expected);
    }

    @Test
    void theServerSectionsOptionsAreRead() {
        ServerConfig c = load(GOOD.replace("instance-id: relay-a", """
                instance-id: relay-a
                  api-token: ${PG_PASSWORD}-and-more-of-it
                  json-logs: true
                  console:
                    read-only: true
                    users:
                      ann: {password-hash: 'pbkdf2-sha256$600000$c2FsdA$aGFzaA', role: Operator}
                      bob: {password-hash: 'pbkdf2-sha256$600000$c2FsdA$aGFzaA'}"""));
        assertThat(c.server().apiToken()).isEqualTo("s3cret-and-more-of-it");
        assertThat(c.server().jsonLogs()).isTrue();
        assertThat(c.server().console().enabled()).isTrue();
        assertThat(c.server().console().readOnly()).isTrue();
        assertThat(c.server().console().users().values()).extracting(ServerConfig.ConsoleUser::name,
                ServerConfig.ConsoleUser::role).containsExactly(org.assertj.core.groups.Tuple.tuple("ann", "operator"),
                org.assertj.core.groups.Tuple.tuple("bob", "viewer"));
        assertThat(load(GOOD).server().console()).isEqualTo(ServerConfig.Console.DEFAULT);
    }

    @Test
    void theTracingSectionIsReadAndItsAbsenceLeavesTheDecisionToTheEnvironment() {
        assertThat(load(GOOD).tracing()).isEqualTo(ServerConfig.Tracing.NONE);
        ServerConfig c = load(GOOD + """
                tracing:
                  enabled: true
                  otlp-endpoint: http://${RABBIT_HOST}:4318
                  service-name: relay-eu
                  sampler-ratio: 0.25
                """);
        assertThat(c.tracing()).isEqualTo(new ServerConfig.Tracing(true, "http://rabbit.internal:4318", "relay-eu", 0.25));
        assertThat(load(GOOD + "tracing: {enabled: false}\n").tracing())
                .isEqualTo(new ServerConfig.Tracing(false, null, null, null));
        assertThat(load(GOOD + "tracing: {sampler-ratio: 0}\n").tracing().samplerRatio()).isZero();
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        List<String> problems = problems(GOOD.replace("batch-size: 200", "batch-size: -1")
                .replace("type: sqs", "").replace("destination: hooks", "destination: nowhere")
                .replace("port: 9090", "port: x"));
        assertThat(problems).hasSize(3).anySatisfy(p -> assertThat(p).startsWith("sources.orders.relay.batch-size:"))
                .anySatisfy(p -> assertThat(p).startsWith("routes[3].destination:"))
                .anySatisfy(p -> assertThat(p).startsWith("server.port: must be a whole number"));
    }

    @Test
    void durationsInEveryWrittenForm() {
        assertThat(ConfigLoader.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(ConfigLoader.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConfigLoader.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(ConfigLoader.parseDuration("3d")).isEqualTo(Duration.ofDays(3));
        assertThat(ConfigLoader.parseDuration("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
        assertThat(ConfigLoader.parseDuration("soon")).isNull();
    }
}
