package dev.postbox.outbox;

import dev.postbox.Postbox;
import dev.postbox.query.PageRequest;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mariadb.jdbc.MariaDbDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user database whose default collation is case- and accent-insensitive (MariaDB's server default,
 * {@code utf8mb4_general_ci}) still keeps Postbox keys apart: the DDL gives every table {@code utf8mb4_bin}.
 * Only MySQL/MariaDB have database collations, hence no binding for the other databases.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbCaseInsensitiveDatabaseTest {

    private final String name = "pbt_ci_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    private MariaDbDataSource admin;
    private MariaDbDataSource ds;
    private Postbox postbox;

    @BeforeAll
    void createDatabase() throws SQLException {
        admin = new MariaDbDataSource(TestDatabase.MARIADB_URL + "?user=" + TestDatabase.MARIADB_USER);
        exec(admin, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
        ds = new MariaDbDataSource(TestDatabase.MARIADB_URL + name + "?user=" + TestDatabase.MARIADB_USER);
        postbox = Postbox.builder(ds).source("test-service").build();
        postbox.schema().install();
    }

    @AfterAll
    void dropDatabase() throws SQLException {
        exec(admin, "DROP DATABASE IF EXISTS " + name);
    }

    private static void exec(MariaDbDataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void keysDifferingInCaseOrAccentAreDifferentEvents() throws Exception {
        assertThat(queryString("SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '" + name + "'"))
                .as("premise: the database compares case-insensitively").isEqualTo("utf8mb4_general_ci");
        List<String> keys = List.of("Order-1", "order-1", "ORDER-1", "Ordér-1");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (String k : keys) {
                assertThat(postbox.outbox().write(c, OutboxEvent.builder().eventNo(k).aggregate("ORDER", k)
                        .eventType("ORDER_CREATED").channel("MQ").payload("{}").build()).outcome())
                        .as(k).isEqualTo(WriteResult.Outcome.INSERTED);
                assertThat(postbox.inbox().once(c, "inventory", k, () -> { }).ran()).as("inbox " + k).isTrue();
            }
            c.commit();
        }
        for (String k : keys) {
            assertThat(postbox.queries().outbox().byEventNo(k).orElseThrow().eventNo()).isEqualTo(k);
            assertThat(postbox.queries().outbox().byAggregate("ORDER", k, PageRequest.first(10)).items())
                    .extracting(OutboxRecord::eventNo).containsExactly(k);
        }
    }

    private String queryString(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
