package dev.postbox.jdbc;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The installer and the shipped DDL on a real database. */
public abstract class SchemaContract extends DatabaseContract {

    @Test
    final void installIsIdempotentAndRecordsItsVersion() {
        assertThat(postbox.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());
        postbox.schema().install();
        postbox.schema().install();
        assertThat(postbox.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());
    }

    @Test
    final void concurrentInstallersCreateTheSchemaOnce() throws Exception {
        Postbox fresh = newPostbox(b -> b.tablePrefix("race_"));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> installs = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                installs.add(pool.submit(() -> fresh.schema().install()));
            }
            for (Future<?> f : installs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(fresh.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());
        assertThat(count("race_postbox_schema")).as("one row per version").isEqualTo(Schema.VERSIONS.size());
        assertThat(count("race_outbox_event")).isZero();
    }

    @Test
    final void tablesCreatedFromTheShippedScriptsAreRecognised() throws Exception {
        Postbox byFlyway = newPostbox(b -> b.tablePrefix("fly_"));
        // what a Flyway user did at version 1: ran the rendered script themselves; install() adds version 2
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String sql : Schema.statements(byFlyway.schema().scripts().get(0).sql())) {
                st.execute(sql);
            }
        }
        byFlyway.schema().install();
        assertThat(byFlyway.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());
        inTx(c -> byFlyway.outbox().write(c, OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1")
                .eventType("ORDER_CREATED").channel("MQ").payload("{}").build()));
        assertThat(count("fly_outbox_event")).isEqualTo(1);
        assertThat(count("fly_admin_log")).as("created by version 2").isZero();
    }

    @Test
    final void renderedScriptsUseOnlyTheConfiguredPrefix() {
        String sql = newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(0).sql();
        assertThat(sql).contains("CREATE TABLE acme_outbox_event", "CREATE TABLE acme_message_event",
                "CREATE TABLE acme_consume_log", "CREATE TABLE acme_compensation_log",
                "CREATE TABLE acme_outbox_event_archive");
        assertThat(newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(1).sql()).contains("acme_admin_log")
                .doesNotContainPattern("\\bbiz_(outbox|admin)");
        assertThat(sql).doesNotContainPattern("\\bbiz_(outbox|message|consume|compensation)");
    }

    @Test
    final void everyStatusCodeFitsTheColumnsAndArchiveTwinsMatchTheirTables() throws Exception {
        for (String[] pair : new String[][] {{postbox.tables().outbox(), postbox.tables().outboxArchive()},
                {postbox.tables().message(), postbox.tables().messageArchive()},
                {postbox.tables().consumeLog(), postbox.tables().consumeLog() + "_archive"},
                {postbox.tables().compensationLog(), postbox.tables().compensationLog() + "_archive"}}) {
            List<String> live = columns(pair[0]);
            List<String> archive = columns(pair[1]);
            assertThat(archive).as(pair[1]).containsAll(live).contains("archived_time").hasSize(live.size() + 1);
        }
    }

    private List<String> columns(String table) throws Exception {
        List<String> names = new java.util.ArrayList<>();
        try (Connection c = ds.getConnection();
             var rs = c.getMetaData().getColumns(c.getCatalog(), c.getSchema(),
                     db.kind().equals("h2") ? table.toUpperCase(java.util.Locale.ROOT) : table, null)) {
            while (rs.next()) {
                names.add(rs.getString("COLUMN_NAME").toLowerCase(java.util.Locale.ROOT));
            }
        }
        assertThat(names).as("columns of " + table).isNotEmpty();
        return names;
    }
}
