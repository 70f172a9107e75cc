package dev.postbox.server;

import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.console.ConsoleApi;
import dev.postbox.console.ConsoleServer;
import dev.postbox.http.HttpPublisher;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.kafka.KafkaPublisherBuilder;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.spi.Publisher;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running server: one relay per source (per tenant table set), each a {@link SourceRelay} with its own connection
 * pool, publishing through the routes of its source to the destinations, each destination shared by the sources routed
 * to it behind its in-flight bound. A source whose database cannot be reached waits (and is tried again) while the
 * others run. Served on {@code server.address:server.port}: {@code /health} (live) and {@code /health/ready} (every
 * source running or paused on purpose, every destination's last outcome a success) with details; {@code /metrics}
 * (Prometheus: the {@code postbox.*} meters of each source tagged {@code source}, and each destination's);
 * {@code /api/sources} and {@code /api/destinations} with {@code POST .../NAME/pause|resume|drain} ({@link ControlApi});
 * the operations console of each source at {@code /console/SOURCE/} (an index at {@code /}). With tracing on
 * ({@link TracingPlan}), every source's Postbox traces through one OpenTelemetry SDK ({@link ServerTracing}): each
 * relay batch is a {@code send {destination}} span linked to the creation context of its events. {@link #close()} is
 * the graceful shutdown: the relays stop claiming and finish or give back what they hold, then the destinations close,
 * then the last spans are exported, then HTTP.
 */
public final class RelayServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

    private final ServerConfig config;
    private final String instanceId;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "postbox-server-timer");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, BoundedPublisher> destinations = new LinkedHashMap<>();
    private final Map<String, SourceRelay> sources = new LinkedHashMap<>();
    private ServerTracing tracing;
    private HttpServer http;
    private ExecutorService httpThreads;
    private volatile boolean closing;

    private RelayServer(ServerConfig config) {
        this.config = config;
        this.instanceId = config.server().instanceId() != null ? config.server().instanceId()
                : ManagementFactory.getRuntimeMXBean().getName();
    }

    /**
     * Starts everything {@code config} names; a reachable source whose tables are missing or old, relay settings out
     * of Postbox's limits, or a destination whose client cannot be built, fail the start naming its key, and what was
     * started is closed again. A source whose database cannot be reached does not: it waits, see {@link SourceRelay}.
     * Tracing is on or off by {@code config.tracing()} and this process's {@code OTEL_*} environment variables and
     * {@code otel.*} system properties ({@link TracingPlan}); an OpenTelemetry setting the SDK refuses fails the start.
     */
    public static RelayServer start(ServerConfig config) {
        RelayServer server = new RelayServer(config);
        try {
            server.tracing = ServerTracing.start(TracingPlan.ofProcess(config.tracing()));
            server.startDestinations();
            server.startSources();
            server.startHttp();
        } catch (RuntimeException | IOException e) {
            server.close();
            throw e instanceof ServerStartException s ? s : new ServerStartException("postbox-server did not start: " + e, e);
        }
        log.info("postbox-server {} relaying {} to {}; http://{}:{}/ (health, metrics, api, console)", server.instanceId,
                server.sources.keySet(), server.destinations.keySet(), config.server().address(), server.port());
        return server;
    }

    /** The port it listens on (the configured one, or the one found for port 0). */
    public int port() {
        return http.getAddress().getPort();
    }

    /** The running relays by bulkhead name ({@code source} or {@code source[tenant]}); waiting or paused ones absent. */
    public Map<String, Relay> relays() {
        Map<String, Relay> out = new LinkedHashMap<>();
        sources.forEach((name, s) -> {
            Relay r = s.relay();
            if (r != null) {
                out.put(name, r);
            }
        });
        return Collections.unmodifiableMap(out);
    }

    /** The Prometheus text of every meter, as {@code /metrics} serves it. */
    public String scrape() {
        return registry.scrape();
    }

    Map<String, SourceRelay> sources() {
        return Collections.unmodifiableMap(sources);
    }

    Map<String, BoundedPublisher> destinations() {
        return Collections.unmodifiableMap(destinations);
    }

    String instanceId() {
        return instanceId;
    }

    String destinationType(String name) {
        return config.destinations().get(name).type();
    }

    boolean closing() {
        return closing;
    }

    private void startDestinations() {
        for (ServerConfig.Destination d : config.destinations().values()) {
            Publisher p;
            try {
                p = publisher(d, null);
            } catch (RuntimeException e) {
                throw new ServerStartException("destinations." + d.name() + ": " + e.getMessage(), e);
            }
            destinations.put(d.name(), new BoundedPublisher(d.name(), p, d.maxInFlight(), registry,
                    BoundedPublisher.answerTimeout(longestSendTimeout(d.name())), d.breaker()));
        }
    }

    /** The longest send timeout of the sources routed to destination {@code name} (Postbox's default where unset). */
    private Duration longestSendTimeout(String name) {
        Duration longest = dev.postbox.relay.RelayDefaults.SEND_TIMEOUT;
        for (ServerConfig.Route r : config.routes()) {
            Duration t = r.destination().equals(name) ? config.sources().get(r.source()).relay().sendTimeout() : null;
            if (t != null && t.compareTo(longest) > 0) {
                longest = t;
            }
        }
        return longest;
    }

    /** A client of {@code d}; {@code bulkhead}: the bulkhead it is for, in its connection's name, or null. */
    private Publisher publisher(ServerConfig.Destination d, String bulkhead) {
        String connection = "postbox-server-" + instanceId + "-" + d.name() + (bulkhead == null ? "" : "-" + bulkhead);
        if (d instanceof ServerConfig.Kafka k) {
            KafkaPublisherBuilder b = KafkaPublisher.builder().bootstrapServers(k.bootstrapServers())
                    .clientId(k.clientId() + (bulkhead == null ? "" : "-" + bulkhead.replaceAll("[^A-Za-z0-9._-]", "_")));
            k.producer().forEach(b::property);
            return b.build();
        }
        if (d instanceof ServerConfig.RabbitMq r) {
            ConnectionFactory f = r.connectionFactory();
            return RabbitPublisher.builder(f).connectionName(connection).build();
        }
        if (d instanceof ServerConfig.Nats n) {
            return NatsPublisher.builder().servers(n.urls().toArray(String[]::new)).subjectPrefix(n.subjectPrefix())
                    .connectionName(connection).build();
        }
        ServerConfig.Http h = (ServerConfig.Http) d;
        HttpPublisher.Builder b = HttpPublisher.builder().maxInFlight(h.maxInFlight()).requestTimeout(h.requestTimeout());
        if (h.secret() != null) {
            b.secret(h.secret());
        }
        // the HTTP publisher picks its endpoint by the event's channel: every channel routed here names this URL
        Set<String> channels = new LinkedHashSet<>();
        config.routes().stream().filter(r -> r.destination().equals(d.name())).forEach(r -> channels.add(r.channel()));
        channels.forEach(channel -> b.endpoint(channel, URI.create(h.url())));
        return b.build();
    }

    /**
     * A relay per bulkhead, each with clients of its own for its destinations (a connection each, the first bulkhead
     * of a destination using the one its start built): one tenant's flood never queues another's sends on one
     * connection; the destination's bound, breaker, pause and meters stay the destination's.
     */
    private void startSources() {
        Set<String> clientUsed = new java.util.HashSet<>();
        for (ServerConfig.Source source : config.sources().values()) {
            Set<String> channels = new LinkedHashSet<>();
            config.routes().stream().filter(r -> r.source().equals(source.name())).forEach(r -> channels.add(r.channel()));
            for (ServerConfig.Bulkhead b : source.bulkheads()) {
                Routes.Builder routes = Routes.builder();
                Map<String, String> destinationOf = new java.util.HashMap<>(); // "channel\0topic" or "channel\0"
                Map<String, Publisher> clients = new LinkedHashMap<>();
                for (ServerConfig.Route r : config.routes()) {
                    if (!r.source().equals(source.name())) {
                        continue;
                    }
                    BoundedPublisher destination = destinations.get(r.destination());
                    Publisher p = clients.computeIfAbsent(r.destination(), name -> {
                        if (clientUsed.add(name)) {
                            return destination;
                        }
                        try {
                            return destination.client(publisher(config.destinations().get(name), b.name()));
                        } catch (RuntimeException e) {
                            throw new ServerStartException("destinations." + name + ": " + e.getMessage(), e);
                        }
                    });
                    destinationOf.put(r.channel() + "\u0000" + (r.topic() == null ? "" : r.topic()), r.destination());
                    if (r.topic() == null) {
                        routes.channel(r.channel(), p);
                    } else {
                        routes.topic(r.channel(), r.topic(), p);
                    }
                }
                SourceRelay s = new SourceRelay(b, routes.build(), channels, instanceId, config.server().console(),
                        registry, timer, destinationOf, tracing.tracing());
                sources.put(b.name(), s);
                s.start();
            }
        }
    }

    private void startHttp() throws IOException {
        http = HttpServer.create(new InetSocketAddress(config.server().address(), config.server().port()), 0);
        ControlApi api = new ControlApi(this, config.server().apiToken());
        http.createContext("/health", api::health);
        http.createContext("/metrics", api::metrics);
        http.createContext("/api/", api::api);
        http.createContext("/", api::index);
        for (SourceRelay s : sources.values()) {
            http.createContext(s.consolePath(), exchange -> {
                ConsoleApi console = s.console();
                if (console == null) {
                    try (exchange) {
                        ControlApi.send(exchange, 503, "{\"error\":\"source " + s.name() + " is " + s.state()
                                + (config.server().console().enabled() ? "" : " and the console is off") + "\"}");
                    }
                    return;
                }
                ConsoleServer.handler(console, s.consolePath()).handle(exchange);
            });
        }
        AtomicInteger n = new AtomicInteger();
        httpThreads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "postbox-server-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(httpThreads);
        http.start();
    }

    /**
     * Graceful: the relays stop claiming and finish or give back their leases; then the destinations; then the
     * tracer exports the spans it still holds; then HTTP.
     */
    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        List<SourceRelay> reverse = new ArrayList<>(sources.values());
        Collections.reverse(reverse);
        for (SourceRelay s : reverse) {
            try {
                s.close();
            } catch (RuntimeException e) {
                log.warn("Closing source {} failed: {}", s.name(), e.toString());
            }
        }
        for (BoundedPublisher d : destinations.values()) {
            try {
                d.close();
            } catch (Exception e) {
                log.warn("Closing destination {} failed: {}", d.name(), e.toString());
            }
        }
        if (tracing != null) {
            try {
                tracing.close();
            } catch (RuntimeException e) {
                log.warn("Closing the tracer failed: {}", e.toString());
            }
        }
        timer.shutdownNow();
        if (http != null) {
            http.stop(0);
            httpThreads.shutdownNow();
        }
        log.info("postbox-server {} stopped", instanceId);
    }

    /** The server could not start: the message names the key of the source or destination at fault. */
    public static final class ServerStartException extends RuntimeException {
        ServerStartException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Just enough JSON for the health documents. */
    static final class Json {
        private Json() {
        }

        static String string(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }
    }
}
