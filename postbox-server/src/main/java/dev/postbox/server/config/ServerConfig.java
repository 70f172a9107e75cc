package dev.postbox.server.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One server's configuration, as {@link ConfigLoader} read and checked it: N sources (databases, each relayed by a
 * relay of its own) x M destinations (brokers and HTTP endpoints) joined by routes. Immutable.
 *
 * @param server       the process: its HTTP port and address, its instance id
 * @param sources      by name, in the file's order
 * @param destinations by name, in the file's order
 * @param routes       in the file's order
 * @param tracing      the {@code tracing:} section; {@link Tracing#NONE} when the file has none
 */
public record ServerConfig(Server server, Map<String, Source> sources, Map<String, Destination> destinations,
                           List<Route> routes, Tracing tracing) {

    public ServerConfig {
        sources = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sources));
        destinations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(destinations));
        routes = List.copyOf(routes);
        tracing = tracing == null ? Tracing.NONE : tracing;
    }

    /**
     * The process.
     *
     * @param address     the address health, metrics and the console listen on
     * @param port        their port (0: any free one)
     * @param instanceId  this replica's name in leases and heartbeats (default: the host name and process id)
     * @param apiToken    the bearer token the control API (pause, resume, drain) asks for; null: that API answers
     *                    only requests from this machine
     * @param console     the operations console, one per source at {@code /console/<source>/}
     * @param jsonLogs    one JSON object per log line on standard output instead of text
     */
    public record Server(String address, int port, String instanceId, String apiToken, Console console,
                         boolean jsonLogs) {

        /** No token, the console on without users (this machine only), text logs. */
        public Server(String address, int port, String instanceId) {
            this(address, port, instanceId, null, Console.DEFAULT, false);
        }
    }

    /**
     * The {@code tracing:} section: OpenTelemetry settings the standard {@code OTEL_*} environment variables and
     * {@code otel.*} system properties override (they are the same autoconfigure properties). Each field is null when
     * the file does not set it.
     *
     * @param enabled      true: trace; false: never trace, whatever the environment says; null: trace only when the
     *                     environment asks for it (an {@code OTEL_TRACES_EXPORTER} other than none, an OTLP endpoint)
     *                     or {@code otlpEndpoint} is set
     * @param otlpEndpoint the collector's OTLP base URL ({@code otel.exporter.otlp.endpoint}, e.g.
     *                     {@code http://collector:4318}; {@code /v1/traces} is appended)
     * @param serviceName  {@code otel.service.name}; default {@value #DEFAULT_SERVICE_NAME}
     * @param samplerRatio the share of relay batches traced, 0 to 1 ({@code parentbased_traceidratio}); default all
     */
    public record Tracing(Boolean enabled, String otlpEndpoint, String serviceName, Double samplerRatio) {

        /** No {@code tracing:} section: the environment decides. */
        public static final Tracing NONE = new Tracing(null, null, null, null);

        /** {@code otel.service.name} unless the file, {@code OTEL_SERVICE_NAME} or {@code OTEL_RESOURCE_ATTRIBUTES} name one. */
        public static final String DEFAULT_SERVICE_NAME = "postbox-server";
    }

    /**
     * The console the server serves for each source.
     *
     * @param enabled  false: no console
     * @param readOnly true: nobody can retry or cancel through it
     * @param users    name -> user; empty: no authentication, and it answers only requests from this machine
     */
    public record Console(boolean enabled, boolean readOnly, Map<String, ConsoleUser> users) {

        /** On, without users. */
        public static final Console DEFAULT = new Console(true, false, Map.of());

        public Console {
            users = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(users));
        }
    }

    /**
     * A console user.
     *
     * @param passwordHash {@code postbox-server hash-password} (PBKDF2) output; never the password itself
     * @param role         viewer, operator or admin
     */
    public record ConsoleUser(String name, String passwordHash, String role) {
    }

    /**
     * A database whose outbox the server relays. With {@code tenants}, one table set per tenant (seed 001 §6.2):
     * each is a bulkhead of its own ({@link #bulkheads()}), relayed by its own relay.
     *
     * @param name        the source's name (its key in the file)
     * @param jdbcUrl     {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:} or {@code jdbc:h2:}
     * @param username    may be null
     * @param password    may be null; write it as {@code ${ENV_VAR}}
     * @param tablePrefix the Postbox tables' prefix (default {@code biz_}); unused with tenants
     * @param tenants     tenant name -> table prefix, in the file's order; empty for one table set
     * @param poolSize    connections of the source's own pool (the relay's claims and records)
     * @param relay       the relay's settings; null fields keep Postbox's defaults
     */
    public record Source(String name, String jdbcUrl, String username, String password, String tablePrefix,
                         Map<String, String> tenants, int poolSize, RelaySettings relay) {

        public Source {
            tenants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tenants));
        }

        /** One relay each: the source itself, or {@code name[tenant]} per tenant with its prefix. */
        public List<Bulkhead> bulkheads() {
            if (tenants.isEmpty()) {
                return List.of(new Bulkhead(name, this, tablePrefix));
            }
            List<Bulkhead> out = new ArrayList<>();
            tenants.forEach((tenant, prefix) -> out.add(new Bulkhead(name + "[" + tenant + "]", this, prefix)));
            return out;
        }
    }

    /** One relay's share of a source: the source, or one tenant's table set of it. */
    public record Bulkhead(String name, Source source, String tablePrefix) {
    }

    /** A relay's settings; each null field keeps Postbox's default, checked against Postbox's limits at start. */
    public record RelaySettings(Integer batchSize, Integer poolSize, Integer inFlightBatches, Duration leaseDuration,
                                Duration sendTimeout, Duration pollIntervalMin, Duration pollIntervalMax,
                                Boolean ordered, List<String> unorderedTopics, Duration retryBase, Duration retryCap,
                                Duration heartbeatInterval) {

        public RelaySettings {
            unorderedTopics = unorderedTopics == null ? List.of() : List.copyOf(unorderedTopics);
        }

        static RelaySettings defaults() {
            return new RelaySettings(null, null, null, null, null, null, null, null, List.of(), null, null, null);
        }
    }

    /**
     * When a destination is taken for down: {@code failures} sends failed in a row (of more than one event, no success
     * nor DEAD answer between); then one event goes as a probe every {@code probeInterval}, the others wait unsent.
     */
    public record Breaker(int failures, Duration probeInterval) {
        /** 5 failures in a row, a probe a second. */
        public static final Breaker DEFAULT = new Breaker(5, Duration.ofSeconds(1));
    }

    /**
     * Where events go. {@code maxInFlight} bounds the sends to it at once, across every source routed to it;
     * {@code breaker} says when it is taken for down.
     */
    public sealed interface Destination permits Kafka, RabbitMq, Nats, Http {
        String name();

        int maxInFlight();

        Breaker breaker();

        /** {@code kafka}, {@code rabbitmq}, {@code nats} or {@code http}. */
        String type();
    }

    /** A Kafka cluster; {@code producer} adds producer properties (the publisher's own ones are refused). */
    public record Kafka(String name, int maxInFlight, Breaker breaker, String bootstrapServers, String clientId,
                        Map<String, String> producer) implements Destination {
        public Kafka {
            producer = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(producer));
        }

        @Override
        public String type() {
            return "kafka";
        }
    }

    /** A RabbitMQ broker; an event's topic is the exchange, its routing key the routing key. */
    public record RabbitMq(String name, int maxInFlight, Breaker breaker, String host, int port, String username, String password,
                           String virtualHost) implements Destination {
        @Override
        public String type() {
            return "rabbitmq";
        }

        /** An AMQP connection factory for this broker (host, port, credentials, virtual host). */
        public com.rabbitmq.client.ConnectionFactory connectionFactory() {
            com.rabbitmq.client.ConnectionFactory f = new com.rabbitmq.client.ConnectionFactory();
            f.setHost(host);
            f.setPort(port);
            f.setUsername(username);
            f.setPassword(password);
            f.setVirtualHost(virtualHost);
            return f;
        }
    }

    /** A NATS JetStream server or cluster; an event's subject is {@code subjectPrefix} + its topic. */
    public record Nats(String name, int maxInFlight, Breaker breaker, List<String> urls, String subjectPrefix) implements Destination {
        public Nats {
            urls = List.copyOf(urls);
        }

        @Override
        public String type() {
            return "nats";
        }
    }

    /** An HTTP endpoint receiving signed webhooks ({@code secret}; null sends them unsigned). */
    public record Http(String name, int maxInFlight, Breaker breaker, String url, String secret, Duration requestTimeout)
            implements Destination {
        @Override
        public String type() {
            return "http";
        }
    }

    /**
     * Events of {@code source} on {@code channel} (and, when given, {@code topic}) go to {@code destination}.
     *
     * @param index the route's place in the file, for messages ({@code routes[2]})
     */
    public record Route(int index, String source, String channel, String topic, String destination) {

        public Optional<String> topicFilter() {
            return Optional.ofNullable(topic);
        }
    }
}
