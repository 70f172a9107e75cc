package dev.postbox.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/**
 * Base of the RabbitMQ tests: a throw-away PostgreSQL schema (outbox, consume log and a {@code received}
 * table the consumers write to), a pooled data source, and an admin channel on the shared local broker
 * whose exchanges and queues, uniquely named, are deleted after the class. Nothing skips: a broker or
 * database that is down fails the tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RabbitTestSupport {

    static final String HOST = System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1");
    static final int PORT = Integer.getInteger("postbox.test.rabbitmq.port", 5672);

    protected final String prefix = "pbt-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    protected TestDatabase db;
    protected HikariDataSource ds;
    protected Postbox postbox;
    protected Channel admin;
    private com.rabbitmq.client.Connection adminConnection;
    private final List<String> exchanges = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();

    @BeforeAll
    void setUpServices() throws Exception {
        db = TestDatabase.postgres(null);
        HikariConfig config = new HikariConfig();
        config.setDataSource(db.dataSource());
        config.setMaximumPoolSize(4);
        config.setConnectionInitSql("SET synchronous_commit TO off"); // test speed only; a test schema is thrown away
        ds = new HikariDataSource(config);
        postbox = Postbox.builder(ds).source("order-service").build();
        postbox.schema().install();
        exec("CREATE TABLE received (seq BIGSERIAL PRIMARY KEY, event_no VARCHAR(128) NOT NULL,"
                + " aggregate_id VARCHAR(128) NOT NULL, n INT NOT NULL)");
        adminConnection = factory().newConnection("postbox-test-admin");
        admin = adminConnection.createChannel();
    }

    @BeforeEach
    void emptyTables() throws Exception {
        exec("DELETE FROM " + postbox.tables().outbox());
        exec("DELETE FROM received");
    }

    @AfterAll
    void tearDownServices() throws Exception {
        try {
            if (admin != null) {
                for (String q : queues) {
                    admin.queueDelete(q);
                }
                for (String x : exchanges) {
                    admin.exchangeDelete(x);
                }
                adminConnection.close();
            }
        } finally {
            if (ds != null) {
                ds.close();
            }
            if (db != null) {
                db.close();
            }
        }
    }

    /** The shared local broker, guest/guest; automatic recovery (the client's default) on, retried every 500 ms. */
    static ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(HOST);
        f.setPort(PORT);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setConnectionTimeout(5_000);
        f.setNetworkRecoveryInterval(500);
        return f;
    }

    /** A durable topic exchange named {@code prefix-name}, deleted after the class. */
    protected String topicExchange(String name) throws Exception {
        String exchange = prefix + "-" + name;
        admin.exchangeDeclare(exchange, "topic", true);
        exchanges.add(exchange);
        return exchange;
    }

    /** A durable queue named {@code prefix-name} bound to {@code exchange} with {@code bindingKey}; deleted after the class. */
    protected String queue(String name, String exchange, String bindingKey, Map<String, Object> arguments) throws Exception {
        String queue = prefix + "-" + name;
        admin.queueDeclare(queue, true, false, false, arguments == null ? new HashMap<>() : arguments);
        queues.add(queue);
        if (exchange != null) {
            admin.queueBind(queue, exchange, bindingKey);
        }
        return queue;
    }

    protected long messageCount(String queue) throws Exception {
        return admin.queueDeclarePassive(queue).getMessageCount();
    }

    /** Event {@code no} of aggregate {@code ORDER/aggregate} with payload {@code {"n":n}}, to {@code exchange}. */
    protected static OutboxEvent.Builder event(String no, String aggregate, int n, String exchange, String routingKey) {
        return OutboxEvent.builder().eventNo(no).aggregate("ORDER", aggregate).eventType("ORDER_CHANGED")
                .channel("MQ").topic(exchange).routingKey(routingKey).payload("{\"n\":" + n + "}");
    }

    protected void write(List<OutboxEvent> events) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().writeAll(c, events);
            c.commit();
        }
    }

    protected OutboxRecord record(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
    }

    /** A consumer whose work inserts the event into {@code received} (n read from the payload). */
    protected EnvelopeConsumer recording(String consumerName) {
        return new EnvelopeConsumer(ds, postbox.inbox(), consumerName, (c, e) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO received (event_no, aggregate_id, n) VALUES (?, ?, ?)")) {
                ps.setString(1, e.eventNo());
                ps.setString(2, e.aggregateId());
                String p = e.payload();
                ps.setInt(3, Integer.parseInt(p.substring(p.indexOf(':') + 1, p.indexOf('}')).trim()));
                ps.executeUpdate();
            }
        });
    }

    /** Per aggregate, the work must have run in event order: returns the violations found. */
    protected List<String> orderViolations() throws Exception {
        List<String> violations = new ArrayList<>();
        Map<String, Integer> last = new HashMap<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT aggregate_id, n FROM received ORDER BY seq")) {
            while (rs.next()) {
                Integer previous = last.put(rs.getString(1), rs.getInt(2));
                if (previous != null && previous >= rs.getInt(2)) {
                    violations.add(rs.getString(1) + ": " + rs.getInt(2) + " after " + previous);
                }
            }
        }
        return violations;
    }

    protected long queryLong(String sql) throws Exception {
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

    protected static void await(String what, Duration timeout, BooleanSupplier condition) {
        dev.postbox.testing.Await.until(what, timeout, condition);
    }

    /** {@link #queryLong}, for conditions. */
    protected long count(String sql) {
        try {
            return queryLong(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
