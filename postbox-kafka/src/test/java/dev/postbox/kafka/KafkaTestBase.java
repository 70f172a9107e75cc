package dev.postbox.kafka;

import dev.postbox.kafka.testing.KafkaCluster;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * An in-process Kafka cluster and one throw-away PostgreSQL schema per test class, with the Postbox
 * tables and a table {@code received} that the consumers' work fills (one row per event that ran). The cluster
 * is the test JVM's shared one ({@link KafkaCluster#shared()}: every test creates its topics with unique names and
 * its consumer groups are named after its consumers, which no other class of this module uses); a class that
 * takes the broker down overrides {@link #cluster()} with one of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class KafkaTestBase {

    protected KafkaCluster kafka;
    protected TestDatabase db;
    protected HikariDataSource ds;
    protected Postbox postbox;

    /** The cluster this class runs on: the test JVM's shared one; its own for a class that stops the broker. */
    protected KafkaCluster cluster() {
        return KafkaCluster.shared();
    }

    @BeforeAll
    final void startServices() throws Exception {
        kafka = cluster();
        db = TestDatabase.postgres(null);
        HikariConfig pool = new HikariConfig();
        pool.setDataSource(db.dataSource());
        pool.setMaximumPoolSize(6);
        // one commit per consumed event: no fsync wait (durability is not under test; as the RabbitMQ and NATS tests)
        pool.setConnectionInitSql("SET synchronous_commit TO off");
        ds = new HikariDataSource(pool);
        postbox = Postbox.builder(ds).source("kafka-test").build();
        postbox.schema().install();
        exec("CREATE TABLE received (id BIGSERIAL PRIMARY KEY, consumer VARCHAR(64) NOT NULL, event_no VARCHAR(128) NOT NULL,"
                + " aggregate_id VARCHAR(64) NOT NULL, seq INT NOT NULL)");
    }

    @AfterAll
    final void stopServices() throws Exception {
        try {
            if (ds != null) {
                ds.close();
            }
            if (db != null) {
                db.close();
            }
        } finally {
            if (kafka != null) {
                kafka.close(); // nothing for the shared cluster
            }
        }
    }

    protected KafkaPublisherBuilder publisher() {
        return KafkaPublisher.builder().bootstrapServers(kafka.bootstrapServers());
    }

    /** A consumer whose work records the event in {@code received} (seq = the payload's {@code seq}). */
    protected EnvelopeConsumer recording(String name) {
        return new EnvelopeConsumer(ds, postbox.inbox(), name, (c, e) -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO received (consumer, event_no, aggregate_id, seq) VALUES (?, ?, ?, ?)")) {
                ps.setString(1, name);
                ps.setString(2, e.eventNo());
                ps.setString(3, e.aggregateId());
                ps.setInt(4, seqOf(e.payload()));
                ps.executeUpdate();
            }
        });
    }

    static int seqOf(String payload) {
        int at = payload.indexOf("\"seq\":");
        if (at < 0) {
            return -1;
        }
        int end = at + 6;
        while (end < payload.length() && Character.isDigit(payload.charAt(end))) {
            end++;
        }
        return Integer.parseInt(payload.substring(at + 6, end));
    }

    protected KafkaEnvelopeConsumerBuilder consume(EnvelopeConsumer consumer, String topic) {
        return KafkaEnvelopeConsumer.builder(consumer).bootstrapServers(kafka.bootstrapServers())
                .groupId(consumer.consumer()).topics(topic).retryBackoff(Duration.ofMillis(200));
    }

    /** Writes events {@code from..to-1} of {@code prefix} round-robin over {@code aggregates} aggregates. */
    protected void writeEvents(String prefix, int from, int to, int aggregates, String topic) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = from; i < to; i++) {
            batch.add(OutboxEvent.builder().eventNo(prefix + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("KAFKA").topic(topic).payload("{\"seq\":" + i + "}")
                    .maxRetries(100).build());
            if (batch.size() == 1000 || i == to - 1) {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    postbox.outbox().writeAll(c, batch);
                    c.commit();
                }
                batch.clear();
            }
        }
    }

    protected long count(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    protected void exec(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /**
     * Checks what consumer {@code name} recorded: every event once, and per aggregate in seq order.
     * Returns the problems found (empty when all is well).
     */
    protected List<String> orderProblems(String name, int expected) throws Exception {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> last = new HashMap<>();
        int rows = 0;
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT aggregate_id, seq FROM received WHERE consumer = ? ORDER BY id")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    String aggregate = rs.getString(1);
                    int seq = rs.getInt(2);
                    Integer before = last.put(aggregate, seq);
                    if (before != null && before >= seq && problems.size() < 20) {
                        problems.add(aggregate + ": " + seq + " after " + before);
                    }
                }
            }
        }
        long distinct = count("SELECT COUNT(DISTINCT event_no) FROM received WHERE consumer = '" + name + "'");
        if (rows != expected || distinct != expected) {
            problems.add("expected " + expected + " events, got " + rows + " rows of " + distinct + " events");
        }
        return problems;
    }

    static void await(Duration max, String what, BooleanSupplier done) {
        dev.postbox.testing.Await.until(what, max, done);
    }

    protected long countQuietly(String sql) {
        try {
            return count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
