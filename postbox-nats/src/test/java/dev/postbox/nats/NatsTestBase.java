package dev.postbox.nats;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A throw-away PostgreSQL schema (outbox, consume log and a table {@code app_received} the consumers
 * write into) per test class, with a real clock, and a fresh JetStream stream per test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class NatsTestBase {

    protected TestDatabase db;
    protected HikariDataSource pool;
    protected Postbox postbox;
    protected JetStreamFixture nats;

    @BeforeAll
    final void createDatabase() throws Exception {
        db = TestDatabase.postgres(null);
        HikariConfig config = new HikariConfig();
        config.setDataSource(db.dataSource());
        config.setMaximumPoolSize(4);
        // one commit per consumed event; no fsync wait keeps the 10,000-event test short (durability is not under test)
        config.setConnectionInitSql("SET synchronous_commit TO off");
        pool = new HikariDataSource(config);
        postbox = Postbox.builder(pool).source("test-service").build();
        postbox.schema().install();
        exec("CREATE TABLE app_received (pos BIGSERIAL PRIMARY KEY, event_no VARCHAR(64) NOT NULL,"
                + " aggregate_id VARCHAR(64) NOT NULL, seq INT NOT NULL)");
    }

    @AfterAll
    final void dropDatabase() {
        try {
            if (pool != null) {
                pool.close();
            }
        } finally {
            if (db != null) {
                db.close();
            }
        }
    }

    @BeforeEach
    final void createStream() throws Exception {
        for (String t : new String[] {"app_received", postbox.tables().outbox(), postbox.tables().consumeLog()}) {
            exec("DELETE FROM " + t);
        }
        nats = new JetStreamFixture();
    }

    @AfterEach
    final void deleteStream() throws Exception {
        if (nats != null) {
            nats.close();
        }
    }

    /** An inbox consumer that records every event it runs for into {@code app_received}. */
    protected EnvelopeConsumer recorder(String name) {
        return new EnvelopeConsumer(pool, postbox.inbox(), name, (c, e) -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO app_received (event_no, aggregate_id, seq) VALUES (?, ?, ?)")) {
                ps.setString(1, e.eventNo());
                ps.setString(2, e.aggregateId());
                ps.setInt(3, Integer.parseInt(e.payload().replaceAll("\\D", "")));
                ps.executeUpdate();
            }
        });
    }

    /** Writes {@code n} events round-robin over {@code aggregates} aggregates; payload {"seq":i}. */
    protected void writeEvents(int n, int aggregates, String topic, int maxRetries) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboxEvent.builder().eventNo(nats.id + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("NATS").topic(topic).payload("{\"seq\":" + i + "}")
                    .maxRetries(maxRetries).build());
            if (batch.size() == 1000 || i == n - 1) {
                try (Connection c = pool.getConnection()) {
                    c.setAutoCommit(false);
                    postbox.outbox().writeAll(c, batch);
                    c.commit();
                }
                batch.clear();
            }
        }
    }

    protected OutboxRecord write(OutboxEvent event) throws Exception {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, event);
            c.commit();
        }
        return postbox.queries().outbox().byEventNo(event.eventNo()).orElseThrow();
    }

    /** Per aggregate, the received seq numbers must grow in arrival order; returns the violations. */
    protected List<String> orderViolations() throws Exception {
        List<String> violations = new ArrayList<>();
        java.util.Map<String, Integer> last = new java.util.HashMap<>();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT aggregate_id, seq FROM app_received ORDER BY pos")) {
            while (rs.next()) {
                Integer previous = last.put(rs.getString(1), rs.getInt(2));
                if (previous != null && previous > rs.getInt(2)) {
                    violations.add(rs.getString(1) + ": " + rs.getInt(2) + " after " + previous);
                }
            }
        }
        return violations;
    }

    protected long queryLong(String sql) throws Exception {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    protected void exec(String sql) throws Exception {
        try (Connection c = (pool == null ? db.dataSource() : pool).getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
