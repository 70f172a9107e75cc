package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.server.config.ServerConfig;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * What {@code postbox-server sample FILE} does for a first run: on each source (each tenant's table set) installs
 * Postbox's tables where they are missing, prepares what each route's topic needs at its destination (a RabbitMQ
 * exchange with a queue bound to it, so the messages stay to be seen; a JetStream stream capturing the subject; a
 * Kafka topic is expected to exist), and writes sample events for every route with a topic. A demo's helper: a
 * production server never creates tables, exchanges or streams.
 */
final class Sample {

    private Sample() {
    }

    /** Prepares and writes {@code perRoute} events per route; returns what it did, one line each. */
    static List<String> run(ServerConfig config, int perRoute) throws Exception {
        List<String> done = new ArrayList<>();
        for (ServerConfig.Destination d : config.destinations().values()) {
            for (ServerConfig.Route r : config.routes()) {
                if (r.destination().equals(d.name()) && r.topic() != null) {
                    done.add(prepare(d, r.topic()));
                }
            }
        }
        String batch = UUID.randomUUID().toString().substring(0, 8);
        for (ServerConfig.Source s : config.sources().values()) {
            for (ServerConfig.Bulkhead b : s.bulkheads()) {
                Postbox postbox = Postbox.builder(new UrlDataSource(s.jdbcUrl(), s.username(), s.password()))
                        .tablePrefix(b.tablePrefix()).source("postbox-server-sample").build();
                if (!postbox.schema().inspect().current()) {
                    postbox.schema().install();
                    done.add(b.name() + ": Postbox tables " + b.tablePrefix() + "* installed");
                }
                int written = 0;
                try (java.sql.Connection c = new UrlDataSource(s.jdbcUrl(), s.username(), s.password()).getConnection()) {
                    c.setAutoCommit(false);
                    for (ServerConfig.Route r : config.routes()) {
                        if (!r.source().equals(s.name()) || r.topic() == null) {
                            continue;
                        }
                        for (int i = 0; i < perRoute; i++) {
                            String order = "ORD-" + batch + "-" + i;
                            postbox.outbox().write(c, OutboxEvent.builder()
                                    .eventNo("SAMPLE:" + b.name() + ":" + r.channel() + ":" + order)
                                    .aggregate("ORDER", order).eventType("ORDER_CREATED").channel(r.channel())
                                    .topic(r.topic()).payload("{\"orderNo\":\"" + order + "\",\"from\":\"" + b.name() + "\"}")
                                    .build());
                            written++;
                        }
                    }
                    c.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(b.name() + ": writing the sample events failed: " + e.getMessage(), e);
                }
                done.add(b.name() + ": " + written + " sample events written");
            }
        }
        return done;
    }

    private static String prepare(ServerConfig.Destination d, String topic) throws Exception {
        if (d instanceof ServerConfig.RabbitMq r) {
            ConnectionFactory f = r.connectionFactory();
            try (com.rabbitmq.client.Connection c = f.newConnection("postbox-server-sample"); Channel ch = c.createChannel()) {
                ch.exchangeDeclare(topic, "topic", true);
                ch.queueDeclare(topic, true, false, false, null);
                ch.queueBind(topic, topic, "#");
            }
            return d.name() + ": exchange " + topic + " with queue " + topic + " bound to it";
        }
        if (d instanceof ServerConfig.Nats n) {
            String subject = n.subjectPrefix() + topic;
            try (Connection c = Nats.connect(io.nats.client.Options.builder().servers(n.urls().toArray(String[]::new))
                    .connectionName("postbox-server-sample").build())) {
                JetStreamManagement jsm = c.jetStreamManagement();
                if (!jsm.getStreamNames(subject).isEmpty()) {
                    return d.name() + ": subject " + subject + " already captured by " + jsm.getStreamNames(subject);
                }
                String stream = subject.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_-]", "_");
                jsm.addStream(StreamConfiguration.builder().name(stream).subjects(subject).storageType(StorageType.File)
                        .build());
                return d.name() + ": stream " + stream + " capturing " + subject;
            } catch (IOException | JetStreamApiException e) {
                throw new IllegalStateException(d.name() + ": preparing the stream for " + subject + " failed: " + e, e);
            }
        }
        return d.name() + ": " + topic + " expected to exist (" + d.type() + ")";
    }
}
