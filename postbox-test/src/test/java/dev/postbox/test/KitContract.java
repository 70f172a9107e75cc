package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Base of the test kit's suites: one throw-away database per class (bound per database in a few lines) with the
 * Postbox schema and a consumer's effect table {@code app_effect}, a Postbox on a {@link TestClock}, a fresh
 * {@link RecordingPublisher} per test, and the driver of each test closed after it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class KitContract {

    /** Where the clock stands at the start of every test. */
    static final Instant START = Instant.parse("2030-03-08T09:59:59.123Z");

    protected TestDatabase db;
    protected DataSource ds;
    protected final TestClock clock = TestClock.at(START);
    protected Postbox postbox;
    protected RecordingPublisher publisher;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger effectIds = new java.util.concurrent.atomic.AtomicInteger();

    protected abstract TestDatabase newDatabase();

    @BeforeAll
    final void createDatabase() throws SQLException {
        db = newDatabase();
        ds = db.dataSource();
        postbox = Postbox.builder(ds).clock(clock).source("kit-test").build();
        postbox.schema().install();
        exec("CREATE TABLE app_effect (id INT NOT NULL PRIMARY KEY, event_no VARCHAR(64) NOT NULL)");
    }

    @AfterAll
    final void dropDatabase() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    final void freshTest() throws SQLException {
        clock.set(START);
        publisher = new RecordingPublisher();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            var t = postbox.tables();
            for (String table : new String[] {"app_effect", t.outbox(), t.message(), t.consumeLog(), t.compensationLog(),
                    t.eventAttempt(), t.outboxArchive()}) {
                st.execute("DELETE FROM " + table);
            }
            c.commit();
        }
    }

    @AfterEach
    final void closeDrivers() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        toClose.clear();
    }

    /** A driver for a relay through {@link #publisher}, closed after the test. */
    protected RelayDriver driver(java.util.function.Consumer<RelayDriver.Builder> settings) {
        RelayDriver.Builder b = RelayDriver.builder(postbox, ds, publisher).clock(clock);
        settings.accept(b);
        return closeLater(b.build());
    }

    protected RelayDriver driver() {
        return driver(b -> { });
    }

    protected <T extends AutoCloseable> T closeLater(T c) {
        toClose.add(c);
        return c;
    }

    /** Commits one outbox event per {@code eventNo}, each of aggregate {@code ORDER/<aggregateId>}. */
    protected void write(String aggregateId, String... eventNos) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (String eventNo : eventNos) {
                postbox.outbox().write(c, event(aggregateId, eventNo).build());
            }
            c.commit();
        }
    }

    protected static OutboxEvent.Builder event(String aggregateId, String eventNo) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId).eventType("ORDER_EVENT")
                .channel("MQ").topic("order.event").payload("{\"no\":\"" + eventNo + "\"}");
    }

    /**
     * The consumer of a test: runs its effect (a row in {@code app_effect}) once per event through the inbox, in its
     * own transaction, as a consuming service would.
     */
    protected void consume(RecordingPublisher.Delivery d) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.inbox().once(c, "consumer", d.eventNo(), () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_effect (id, event_no) VALUES (?, ?)")) {
                    ps.setInt(1, effectIds.incrementAndGet());
                    ps.setString(2, d.eventNo());
                    ps.executeUpdate();
                }
            });
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The effects counted per event, for {@link InvariantChecker#withEffects}. */
    static final String EFFECTS = "SELECT event_no, COUNT(*) FROM app_effect GROUP BY event_no";

    protected void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    protected long queryLong(String sql, Object... params) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** A time column of the outbox row {@code eventNo}. */
    protected Instant outboxTime(String column, String eventNo) throws SQLException {
        return time("SELECT " + column + " FROM " + postbox.tables().outbox() + " WHERE event_no = ?", eventNo);
    }

    protected Instant time(String sql, String param) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("no row for " + param + ": " + sql);
                }
                return postbox.dialect().readTime(rs, rs.getMetaData().getColumnLabel(1));
            }
        }
    }

    /** The publish_status name of the outbox row {@code eventNo}. */
    protected String status(String eventNo) throws SQLException {
        long code = queryLong("SELECT publish_status FROM " + postbox.tables().outbox() + " WHERE event_no = ?", eventNo);
        return dev.postbox.outbox.OutboxStatus.of((int) code).name();
    }
}
