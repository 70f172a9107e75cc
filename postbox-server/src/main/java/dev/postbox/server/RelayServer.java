package dev.postbox.server;

import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.http.HttpPublisher;
import dev.postbox.jdbc.SchemaState;
import dev.postbox.kafka.KafkaPublisher;
import dev.postbox.kafka.KafkaPublisherBuilder;
import dev.postbox.nats.NatsPublisher;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.spi.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A running server: one relay per source (per tenant table set), each on its own connection pool, publishing through
 * the routes of its source to the destinations, each destination shared by the sources routed to it behind its
 * in-flight bound; {@code /health} (live) and {@code /health/ready} (every relay running and trusting its clock) with
 * details per source and destination. {@link #close()} is the graceful shutdown: the relays stop claiming and finish
 * or give back what they hold, then the destinations close, then the HTTP endpoint.
 */
public final class RelayServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

    private final ServerConfig config;
    private final String instanceId;
    private final Map<String, BoundedPublisher> destinations = new LinkedHashMap<>();
    private final Map<String, Relay> relays = new LinkedHashMap<>();
    private HttpServer http;
    private volatile boolean closing;

    private RelayServer(ServerConfig config) {
        this.config = config;
        this.instanceId = config.server().instanceId() != null ? config.server().instanceId()
                : ManagementFactory.getRuntimeMXBean().getName();
    }

    /**
     * Starts everything {@code config} names; a source whose tables are missing or old, or a destination whose client
     * cannot be built, fails the start naming its key, and what was started is closed again.
     */
    public static RelayServer start(ServerConfig config) {
        RelayServer server = new RelayServer(config);
        try {
            server.startDestinations();
            server.startRelays();
            server.startHttp();
        } catch (RuntimeException | IOException e) {
            server.close();
            throw e instanceof ServerStartException s ? s : new ServerStartException("postbox-server did not start: " + e, e);
        }
        log.info("postbox-server {} relaying {} to {}; health on http://{}:{}/health", server.instanceId,
                server.relays.keySet(), server.destinations.keySet(), config.server().address(), server.port());
        return server;
    }

    /** The port health listens on (the configured one, or the one found for port 0). */
    public int port() {
        return http.getAddress().getPort();
    }

    /** The relays by bulkhead name ({@code source} or {@code source[tenant]}). */
    public Map<String, Relay> relays() {
        return Collections.unmodifiableMap(relays);
    }

    private void startDestinations() {
        for (ServerConfig.Destination d : config.destinations().values()) {
            Publisher p;
            try {
                p = publisher(d);
            } catch (RuntimeException e) {
                throw new ServerStartException("destinations." + d.name() + ": " + e.getMessage(), e);
            }
            destinations.put(d.name(), new BoundedPublisher(d.name(), p, d.maxInFlight()));
        }
    }

    private Publisher publisher(ServerConfig.Destination d) {
        String connection = "postbox-server-" + instanceId + "-" + d.name();
        if (d instanceof ServerConfig.Kafka k) {
            KafkaPublisherBuilder b = KafkaPublisher.builder().bootstrapServers(k.bootstrapServers()).clientId(k.clientId());
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

    private void startRelays() {
        for (ServerConfig.Source source : config.sources().values()) {
            Routes.Builder routes = Routes.builder();
            for (ServerConfig.Route r : config.routes()) {
                if (!r.source().equals(source.name())) {
                    continue;
                }
                BoundedPublisher p = destinations.get(r.destination());
                if (r.topic() == null) {
                    routes.channel(r.channel(), p);
                } else {
                    routes.topic(r.channel(), r.topic(), p);
                }
            }
            Routes built = routes.build();
            for (ServerConfig.Bulkhead b : source.bulkheads()) {
                String key = "sources." + source.name() + (source.tenants().isEmpty() ? ""
                        : ".tenants." + b.name().substring(source.name().length() + 1, b.name().length() - 1));
                Postbox postbox = Postbox.builder(new UrlDataSource(source.jdbcUrl(), source.username(), source.password()))
                        .tablePrefix(b.tablePrefix()).build();
                SchemaState state = postbox.schema().inspect();
                if (!state.current()) {
                    throw new ServerStartException(key + ": the Postbox tables " + b.tablePrefix() + "* are at version "
                            + state.foundVersion() + ", this Postbox needs " + state.expectedVersion() + " (run "
                            + "postbox-server validate for what is missing)", null);
                }
                String problem = Relays.check(postbox, "sources." + source.name(), source.relay());
                if (problem != null) {
                    throw new ServerStartException(problem, null);
                }
                Relay relay = Relays.builder(postbox, built, source.relay())
                        .instanceId(instanceId + "/" + b.name()).start();
                relays.put(b.name(), relay);
            }
        }
    }

    private void startHttp() throws IOException {
        http = HttpServer.create(new InetSocketAddress(config.server().address(), config.server().port()), 0);
        http.createContext("/health", this::health);
        http.setExecutor(null);
        http.start();
    }

    private void health(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            boolean ready = path.equals("/health/ready");
            if (!ready && !path.equals("/health")) {
                send(exchange, 404, "{\"error\":\"not found\"}");
                return;
            }
            if (!ready) {
                send(exchange, closing ? 503 : 200, "{\"status\":\"" + (closing ? "DOWN" : "UP") + "\"}");
                return;
            }
            boolean up = !closing;
            StringBuilder sources = new StringBuilder();
            for (Map.Entry<String, Relay> e : relays.entrySet()) {
                Relay r = e.getValue();
                boolean ok = r.isRunning() && r.clockTrusted();
                up &= ok;
                sources.append(sources.length() == 0 ? "" : ",").append(Json.string(e.getKey())).append(":{\"status\":\"")
                        .append(ok ? "UP" : "DOWN").append("\",\"running\":").append(r.isRunning())
                        .append(",\"clockTrusted\":").append(r.clockTrusted()).append(",\"instanceId\":")
                        .append(Json.string(r.instanceId())).append('}');
            }
            StringBuilder dests = new StringBuilder();
            for (BoundedPublisher d : destinations.values()) {
                dests.append(dests.length() == 0 ? "" : ",").append(Json.string(d.name())).append(":{\"type\":\"")
                        .append(config.destinations().get(d.name()).type()).append("\",\"inFlight\":").append(d.inFlight())
                        .append(",\"maxInFlight\":").append(d.maxInFlight()).append('}');
            }
            send(exchange, up ? 200 : 503, "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"instanceId\":"
                    + Json.string(instanceId) + ",\"sources\":{" + sources + "},\"destinations\":{" + dests + "}}");
        }
    }

    private static void send(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Graceful: the relays stop claiming and finish or give back their leases; then the destinations, then HTTP. */
    @Override
    public synchronized void close() {
        closing = true;
        List<Relay> reverse = new ArrayList<>(relays.values());
        Collections.reverse(reverse);
        for (Relay r : reverse) {
            try {
                r.close();
            } catch (RuntimeException e) {
                log.warn("Closing relay {} failed: {}", r.instanceId(), e.toString());
            }
        }
        for (BoundedPublisher d : destinations.values()) {
            try {
                d.close();
            } catch (Exception e) {
                log.warn("Closing destination {} failed: {}", d.name(), e.toString());
            }
        }
        if (http != null) {
            http.stop(0);
        }
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
