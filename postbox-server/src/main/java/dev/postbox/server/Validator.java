package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.jdbc.SchemaState;
import dev.postbox.server.config.ServerConfig;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What {@code postbox-server validate FILE} checks beyond the file itself, without starting anything: every source
 * (each tenant's table set) is reachable with its credentials, holds Postbox's tables at this Postbox's schema version
 * and lets the relay read and update its outbox, and its relay settings are within Postbox's limits; every destination
 * is reachable; every route that names a topic finds it (a Kafka topic, a RabbitMQ exchange, a JetStream stream
 * capturing the subject). Each check reports the key it is about.
 */
public final class Validator {

    /** One check: its key in the file, whether it holds, and what was found. */
    public record Check(String key, boolean ok, String detail) {
        @Override
        public String toString() {
            return (ok ? "OK    " : "FAIL  ") + key + ": " + detail;
        }
    }

    private final Duration timeout;

    /** A validator giving each connection {@code timeout}. */
    public Validator(Duration timeout) {
        this.timeout = timeout;
    }

    /** Every check of {@code config}, sources first, then destinations with their routes. */
    public List<Check> validate(ServerConfig config) {
        List<Check> out = new ArrayList<>();
        for (ServerConfig.Source source : config.sources().values()) {
            for (ServerConfig.Bulkhead b : source.bulkheads()) {
                out.add(source(b));
            }
        }
        for (ServerConfig.Destination d : config.destinations().values()) {
            List<ServerConfig.Route> routes = config.routes().stream().filter(r -> r.destination().equals(d.name())).toList();
            out.addAll(destination(d, routes));
        }
        return out;
    }

    private Check source(ServerConfig.Bulkhead b) {
        ServerConfig.Source s = b.source();
        String key = "sources." + s.name() + (s.tenants().isEmpty() ? "" : ".tenants."
                + b.name().substring(s.name().length() + 1, b.name().length() - 1));
        DriverManager.setLoginTimeout((int) Math.max(1, timeout.toSeconds()));
        javax.sql.DataSource ds = new UrlDataSource(s.jdbcUrl(), s.username(), s.password());
        try (java.sql.Connection probe = ds.getConnection()) {
            probe.isValid(1);
        } catch (SQLException e) {
            return new Check(key, false, "cannot connect to " + s.jdbcUrl() + (s.username() == null ? "" : " as "
                    + s.username()) + ": " + e.getMessage());
        }
        Postbox postbox;
        try {
            postbox = Postbox.builder(ds).tablePrefix(b.tablePrefix()).build();
        } catch (RuntimeException e) {
            return new Check(key, false, e.getMessage());
        }
        SchemaState state = postbox.schema().inspect();
        if (!state.current()) {
            String found = state.foundVersion() == 0 && !state.versionRecorded() ? "no Postbox tables"
                    : "schema version " + state.foundVersion();
            return new Check(key, false, found + " in " + state.database() + "; this Postbox needs version "
                    + state.expectedVersion() + (state.missingTables().isEmpty() ? ""
                    : " (missing: " + String.join(", ", state.missingTables()) + ")")
                    + (state.pendingScripts().isEmpty() ? "" : "; run " + String.join(", ", state.pendingScripts())));
        }
        String outbox = postbox.tables().outbox();
        try (java.sql.Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.executeQuery("SELECT id FROM " + outbox + " WHERE 1 = 0").close();
                st.executeUpdate("UPDATE " + outbox + " SET publish_status = publish_status WHERE 1 = 0");
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            return new Check(key, false, "the relay cannot read and update " + outbox + ": " + e.getMessage());
        }
        String relay = Relays.check(postbox, "sources." + s.name(), s.relay());
        if (relay != null) {
            return new Check(key, false, relay);
        }
        return new Check(key, true, postbox.dialect().name() + " at " + s.jdbcUrl() + ", schema version "
                + state.foundVersion() + ", " + outbox + " readable and writable");
    }

    private List<Check> destination(ServerConfig.Destination d, List<ServerConfig.Route> routes) {
        String key = "destinations." + d.name();
        try {
            if (d instanceof ServerConfig.Kafka k) {
                return kafka(key, k, routes);
            }
            if (d instanceof ServerConfig.RabbitMq r) {
                return rabbit(key, r, routes);
            }
            if (d instanceof ServerConfig.Nats n) {
                return nats(key, n, routes);
            }
            return List.of(http(key, (ServerConfig.Http) d));
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return List.of(new Check(key, false, "not reachable: " + e));
        }
    }

    private List<Check> kafka(String key, ServerConfig.Kafka k, List<ServerConfig.Route> routes) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, k.clientId() + "-validate");
        List<Check> out = new ArrayList<>();
        try (Admin admin = Admin.create(p)) {
            String cluster;
            try {
                cluster = admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                return List.of(new Check(key, false, "Kafka at " + k.bootstrapServers() + " not reachable: "
                        + (e.getCause() != null ? e.getCause() : e)));
            }
            out.add(new Check(key, true, "Kafka cluster " + cluster + " at " + k.bootstrapServers()));
            Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            for (ServerConfig.Route r : routes) {
                if (r.topic() != null) {
                    boolean there = existing.contains(r.topic());
                    out.add(new Check("routes[" + r.index() + "].topic", there, there ? "Kafka topic " + r.topic()
                            + " exists" : "no Kafka topic '" + r.topic() + "' in " + key + " (Postbox never creates"
                            + " topics: create it with its partitions and replication)"));
                }
            }
        }
        return out;
    }

    private List<Check> rabbit(String key, ServerConfig.RabbitMq r, List<ServerConfig.Route> routes) throws Exception {
        ConnectionFactory f = r.connectionFactory();
        f.setConnectionTimeout((int) timeout.toMillis());
        List<Check> out = new ArrayList<>();
        try (com.rabbitmq.client.Connection c = f.newConnection("postbox-server-validate")) {
            out.add(new Check(key, true, "RabbitMQ " + c.getServerProperties().get("version") + " at " + r.host() + ":"
                    + r.port() + " as " + r.username()));
            for (ServerConfig.Route route : routes) {
                if (route.topic() == null) {
                    continue;
                }
                String exchange = route.topic();
                boolean there;
                try (Channel ch = c.createChannel()) {
                    ch.exchangeDeclarePassive(exchange);
                    there = true;
                } catch (IOException notFound) {
                    there = false; // the failed passive declare closed that channel
                }
                out.add(new Check("routes[" + route.index() + "].topic", there, there ? "RabbitMQ exchange " + exchange
                        + " exists" : "no RabbitMQ exchange '" + exchange + "' in " + key + " (vhost "
                        + r.virtualHost() + ")"));
            }
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            return List.of(new Check(key, false, "RabbitMQ at " + r.host() + ":" + r.port() + " not reachable: " + e));
        }
        return out;
    }

    private List<Check> nats(String key, ServerConfig.Nats n, List<ServerConfig.Route> routes) throws Exception {
        Options options = Options.builder().servers(n.urls().toArray(String[]::new)).connectionTimeout(timeout)
                .maxReconnects(0).connectionName("postbox-server-validate").build();
        List<Check> out = new ArrayList<>();
        Connection c;
        try {
            c = Nats.connect(options);
        } catch (IOException e) {
            return List.of(new Check(key, false, "NATS at " + String.join(",", n.urls()) + " not reachable: " + e));
        }
        try {
            JetStreamManagement jsm = c.jetStreamManagement();
            out.add(new Check(key, true, "NATS " + c.getServerInfo().getVersion() + " at " + c.getConnectedUrl()
                    + " with JetStream (" + jsm.getAccountStatistics().getStreams() + " streams)"));
            for (ServerConfig.Route route : routes) {
                if (route.topic() == null) {
                    continue;
                }
                String subject = n.subjectPrefix() + route.topic();
                List<String> streams = jsm.getStreamNames(subject);
                boolean there = !streams.isEmpty();
                out.add(new Check("routes[" + route.index() + "].topic", there, there ? "subject " + subject
                        + " is captured by stream " + String.join(", ", streams) : "no JetStream stream captures subject '"
                        + subject + "' in " + key + " (create one whose subjects include it)"));
            }
        } catch (io.nats.client.JetStreamApiException e) {
            out.add(new Check(key, false, "JetStream is not enabled or not permitted: " + e.getMessage()));
        } finally {
            c.close();
        }
        return out;
    }

    private Check http(String key, ServerConfig.Http h) {
        URI u = URI.create(h.url());
        int port = u.getPort() != -1 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(u.getHost(), port), (int) timeout.toMillis());
            return new Check(key, true, "HTTP endpoint " + u.getHost() + ":" + port + " accepts connections"
                    + (h.secret() == null ? " (requests unsigned: no secret)" : ""));
        } catch (IOException e) {
            return new Check(key, false, "HTTP endpoint " + u.getHost() + ":" + port + " not reachable: " + e);
        }
    }
}
