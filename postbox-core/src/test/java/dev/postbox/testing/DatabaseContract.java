package dev.postbox.testing;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import org.junit.jupiter.api.AfterAll;
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
import java.util.TimeZone;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Base of every conformance suite: one throw-away database per test class with the Postbox schema and
 * a business table {@code app_order}, emptied before each test. A binding names the database in one
 * method; a binding may also run the whole suite under another JVM default time zone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseContract {

    /** 2026-03-08T09:59:59.123Z: a US daylight-saving change day, with milliseconds. */
    public static final Instant START = Instant.parse("2026-03-08T09:59:59.123Z");

    protected TestDatabase db;
    protected DataSource ds;
    protected final MutableClock clock = new MutableClock(START);
    protected Postbox postbox;
    private TimeZone savedDefault;

    /** The database this binding runs against. */
    protected abstract TestDatabase newDatabase();

    /** JVM default time zone for the whole suite, or null to keep the machine's. */
    protected String jvmTimeZone() {
        return null;
    }

    @BeforeAll
    final void createDatabase() throws SQLException {
        savedDefault = TimeZone.getDefault();
        if (jvmTimeZone() != null) {
            TimeZone.setDefault(TimeZone.getTimeZone(jvmTimeZone()));
        }
        db = newDatabase();
        ds = db.dataSource();
        postbox = newPostbox(b -> { });
        postbox.schema().install();
        exec("CREATE TABLE app_order (order_no VARCHAR(64) NOT NULL PRIMARY KEY, amount INT NOT NULL, status VARCHAR(16) NOT NULL)");
    }

    @AfterAll
    final void dropDatabase() {
        try {
            if (db != null) {
                db.close();
            }
        } finally {
            TimeZone.setDefault(savedDefault);
        }
    }

    @BeforeEach
    final void emptyTables() throws SQLException {
        clock.set(START);
        // one transaction: one commit (one WAL flush) per test instead of six
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (String t : new String[] {"app_order", postbox.tables().outbox(), postbox.tables().message(),
                    postbox.tables().consumeLog(), postbox.tables().compensationLog(), postbox.tables().adminLog()}) {
                st.execute("DELETE FROM " + t);
            }
            c.commit();
        }
    }

    /** A Postbox on this database with the test clock and source {@code test-service}. */
    protected Postbox newPostbox(Consumer<Postbox.Builder> customizer) {
        Postbox.Builder b = Postbox.builder(ds).clock(clock).source("test-service");
        customizer.accept(b);
        return b.build();
    }

    protected interface TxWork<T> {
        T run(Connection c) throws Exception;
    }

    /** Runs {@code work} in a transaction that commits. */
    protected <T> T inTx(TxWork<T> work) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (Throwable t) {
                c.rollback();
                throw t;
            }
        }
    }

    protected void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    protected long count(String table) throws SQLException {
        return queryLong("SELECT COUNT(*) FROM " + table);
    }

    /** How one row of a database's EXPLAIN output is rendered for an assertion. */
    protected interface ExplainLine {
        String render(ResultSet rs) throws SQLException;
    }

    /** The rows of {@code EXPLAIN sql} with {@code params} bound (instants through {@code dialect}), each as {@code line} renders it. */
    protected java.util.List<String> explain(dev.postbox.jdbc.Dialect dialect, String sql, java.util.List<Object> params,
                                             ExplainLine line) throws SQLException {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.size(); i++) {
                if (params.get(i) instanceof Instant t) {
                    dialect.bindTime(ps, i + 1, t);
                } else {
                    ps.setObject(i + 1, params.get(i));
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(line.render(rs));
                }
            }
        }
        return out;
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

    protected String queryString(String sql, Object... params) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /**
     * A call in the caller's transaction that must be refused before any SQL: a {@code ValidationException}
     * naming {@code field}, whose message contains {@code refusal} (the limit); nothing lands in {@code table},
     * and the business rows written before and after it in the same transaction commit.
     */
    protected final void refusedWithNothingWritten(TxWork<?> call, String field, String refusal, String table)
            throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-before");
            assertThatThrownBy(() -> call.run(c))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo(field))
                    .hasMessageStartingWith(field + ":")
                    .hasMessageContaining(refusal);
            insertOrder(c, "O-after");
            c.commit();
        }
        assertThat(count(table)).isZero();
        assertThat(count("app_order")).isEqualTo(2);
    }

    /** Inserts a business row in the caller's transaction. */
    protected static void insertOrder(Connection c, String orderNo) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_order (order_no, amount, status) VALUES (?, ?, ?)")) {
            ps.setString(1, orderNo);
            ps.setInt(2, 1990);
            ps.setString(3, "CREATED");
            ps.executeUpdate();
        }
    }
}
