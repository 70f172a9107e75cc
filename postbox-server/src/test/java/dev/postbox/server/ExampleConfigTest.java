package dev.postbox.server;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example configuration scripts/server runs ({@code config/example.yml}), with the environment pointing it at this
 * test's databases and names: {@code sample} installs the tables, declares the exchange and the stream and writes
 * events, and the server relays every one of them to the local RabbitMQ and NATS.
 */
class ExampleConfigTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    private static long published(TestDatabase db) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM demo_outbox_event WHERE publish_status = ?")) {
            ps.setInt(1, OutboxStatus.PUBLISHED.code());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void theExamplesCommentedTracingSectionIsValidOnceUncommented() throws Exception {
        String example = Files.readString(Path.of("config/example.yml"));
        assertThat(new ConfigLoader(name -> null).parse("example.yml", example).tracing())
                .as("commented out: the environment decides").isEqualTo(ServerConfig.Tracing.NONE);
        int start = example.indexOf("\n#tracing:\n");
        assertThat(start).as("the example's commented tracing section").isPositive();
        StringBuilder uncommented = new StringBuilder(example.substring(0, start + 1));
        example.substring(start + 1).lines().takeWhile(l -> l.startsWith("#tracing:") || l.startsWith("#  "))
                .forEach(l -> uncommented.append(l.substring(1)).append('\n'));
        ServerConfig config = new ConfigLoader(name -> null).parse("example.yml", uncommented.toString());
        assertThat(config.tracing()).isEqualTo(new ServerConfig.Tracing(true, "http://127.0.0.1:4318", "postbox-demo", 1.0));
        assertThat(TracingPlan.of(config.tracing(), Map.of(), new java.util.Properties()).properties())
                .containsEntry("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")
                .containsEntry("otel.service.name", "postbox-demo");
    }

    @Test
    void theExampleRelaysTheSampleEventsOfBothDatabasesToRabbitMqAndNats() throws Exception {
        String topic = "postbox.demo." + RUN;
        String stream = topic.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_-]", "_");
        try (TestDatabase pg = TestDatabase.postgres(null); TestDatabase maria = TestDatabase.mariadb(null)) {
            Map<String, String> env = Map.of("POSTBOX_DEMO_PG_URL", pg.jdbcUrl(), "POSTBOX_DEMO_MARIADB_URL",
                    maria.jdbcUrl(), "POSTBOX_DEMO_TOPIC", topic, "POSTBOX_SERVER_PORT", "0");
            ServerConfig config = new ConfigLoader(env::get).load(Path.of("config/example.yml"));
            assertThat(config.sources()).containsOnlyKeys("orders-pg", "billing-mariadb");

            List<String> done = Sample.run(config, 5);
            assertThat(done).contains("orders-pg: Postbox tables demo_* installed", "orders-pg: 5 sample events written",
                    "billing-mariadb: 5 sample events written", "nats: stream " + stream + " capturing " + topic);
            try {
                try (RelayServer server = RelayServer.start(config)) {
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (published(pg) < 5 || published(maria) < 5) {
                        assertThat(System.nanoTime()).as("the sample events PUBLISHED within 30 s").isLessThan(deadline);
                        Thread.sleep(100);
                    }
                    assertThat(server.relays()).containsOnlyKeys("orders-pg", "billing-mariadb");
                }
                ConnectionFactory f = new ConnectionFactory();
                f.setHost("127.0.0.1");
                try (com.rabbitmq.client.Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                    assertThat(ch.messageCount(topic)).as("messages in queue " + topic).isEqualTo(5);
                }
                try (Connection nats = Nats.connect("nats://127.0.0.1:4222")) {
                    assertThat(nats.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(5);
                }
            } finally {
                ConnectionFactory f = new ConnectionFactory();
                f.setHost("127.0.0.1");
                try (com.rabbitmq.client.Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                    ch.queueDelete(topic);
                    ch.exchangeDelete(topic);
                }
                try (Connection nats = Nats.connect("nats://127.0.0.1:4222")) {
                    nats.jetStreamManagement().deleteStream(stream);
                }
            }
            assertThat(Postbox.builder(pg.dataSource()).tablePrefix("demo_").build().schema().inspect().current()).isTrue();
        }
    }
}
