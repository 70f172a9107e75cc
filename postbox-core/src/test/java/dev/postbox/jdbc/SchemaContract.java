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
        // what a Flyway user did at version 1: ran the rendered script themselves; install() adds versions 2 and 3
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

    /** Snowflake-sized ids, as Postbox generated them before version 3 (time since 2024 in the high bits). */
    private static final long OLD_ID = 320_000_000_000_000_000L;

    @Test
    final void anInstallWithSnowflakeIdsMovedToDatabaseIdsContinuesAboveThem() throws Exception {
        Postbox old = newPostbox(b -> b.tablePrefix("old_"));
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String sql : Schema.statements(old.schema().scripts().get(0).sql())) {
                st.execute(sql);
            }
        }
        // rows an older Postbox wrote with its own ids; an archived message event holds the largest id of its table
        java.time.Instant t = clock.instant();
        insertOld("INSERT INTO old_outbox_event (id, event_no, aggregate_type, aggregate_id, event_type, event_source,"
                + " publish_channel, event_payload, create_time, update_time) VALUES (?, 'OLD-1', 'ORDER', 'O-1', 'X', 's',"
                + " 'MQ', " + old.dialect().jsonParameter() + ", ?, ?)", OLD_ID, t, "{}");
        insertOld("INSERT INTO old_message_event (id, event_no, event_type, biz_type, biz_id, event_source, event_payload,"
                + " create_time, update_time) VALUES (?, 'OLD-M1', 'X', 'ORDER', 'O-1', 's', "
                + old.dialect().jsonParameter() + ", ?, ?)", OLD_ID, t, "{}");
        insertOld("INSERT INTO old_message_event_archive (id, event_no, event_type, biz_type, biz_id, event_source,"
                + " event_payload, create_time, update_time, archived_time) VALUES (?, 'OLD-M0', 'X', 'ORDER', 'O-0', 's', "
                + old.dialect().jsonParameter() + ", ?, ?, ?)", OLD_ID + 5_000, t, "{}");
        insertOld("INSERT INTO old_consume_log (id, consumer, event_no, consume_status, create_time, update_time)"
                + " VALUES (?, 'stock', 'OLD-1', 'DONE', ?, ?)", OLD_ID, t, null);
        insertOld("INSERT INTO old_compensation_log (id, biz_type, biz_key, action_type, compensate_status, attempts,"
                + " create_time, update_time) VALUES (?, 'ORDER', 'O-1', 'CANCEL', 'DONE', 1, ?, ?)", OLD_ID, t, null);

        old.schema().install();
        assertThat(old.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());

        long outboxId = inTx(c -> old.outbox().write(c, OutboxEvent.builder().eventNo("NEW-1").aggregate("ORDER", "O-1")
                .eventType("X").channel("MQ").payload("{}").build())).id();
        long nextOutboxId = inTx(c -> old.outbox().writeAll(c, List.of(OutboxEvent.builder().eventNo("NEW-2")
                .aggregate("ORDER", "O-1").eventType("X").channel("MQ").payload("{}").build()))).get(0).id();
        long messageId = inTx(c -> old.messages().create(c, dev.postbox.message.MessageEvent.builder().eventNo("NEW-M1")
                .eventType("X").biz("ORDER", "O-1").payload("{}").build())).id();
        inTx(c -> old.inbox().once(c, "stock", "NEW-1", () -> { }));
        inTx(c -> old.compensations().once(c, "ORDER", "O-2", "CANCEL", conn -> "done"));
        assertThat(outboxId).as("above the old ids").isGreaterThan(OLD_ID);
        assertThat(nextOutboxId).as("and in order after them").isGreaterThan(outboxId);
        assertThat(messageId).as("above the archived ids too").isGreaterThan(OLD_ID + 5_000);
        assertThat(queryLong("SELECT MAX(id) FROM old_consume_log")).isGreaterThan(OLD_ID);
        assertThat(queryLong("SELECT MAX(id) FROM old_compensation_log")).isGreaterThan(OLD_ID);
        assertThat(old.admin().cancel("NEW-2", "ops", "test")).isTrue();
        assertThat(queryLong("SELECT MIN(id) FROM old_admin_log")).isPositive();
    }

    /**
     * What version 5 changed for this dialect's order guard: the columns of its index on the outbox, in order,
     * or empty where version 5 changes nothing (PostgreSQL).
     */
    protected List<String> guardIndexColumns(String outboxTable) throws Exception {
        return List.of();
    }

    @Test
    final void aPopulatedInstallOfVersionFourIsUpgradedInPlaceWithEveryRow() throws Exception {
        Postbox v4 = newPostbox(b -> b.tablePrefix("v4_"));
        v4.schema().install(4);
        assertThat(v4.schema().installedVersion()).isEqualTo(4);
        String outbox = v4.tables().outbox();
        List<String> before = guardIndexColumns(outbox);
        for (int i = 0; i < 300; i++) {
            int n = i;
            inTx(c -> v4.outbox().write(c, OutboxEvent.builder().eventNo("V4-" + n).aggregate("ORDER", "O-" + n % 7)
                    .eventType("X").channel("MQ").payload("{}").build()));
        }
        // every status, and soft-deleted rows, as a running installation has them
        exec("UPDATE " + outbox + " SET publish_status = 2 WHERE id % 5 = 0");
        exec("UPDATE " + outbox + " SET publish_status = 5 WHERE id % 5 = 1");
        exec("UPDATE " + outbox + " SET publish_status = 3 WHERE id % 5 = 2");
        exec("UPDATE " + outbox + " SET deleted = 1 WHERE id % 10 = 3");
        String census = "SELECT COUNT(*) * 1000 + SUM(publish_status * 10 + deleted) FROM " + outbox;
        long rows = queryLong(census);

        v4.schema().install();

        assertThat(v4.schema().installedVersion()).isEqualTo(Schema.VERSIONS.size());
        assertThat(queryLong(census)).as("every row with its status and deleted flag").isEqualTo(rows);
        List<String> after = guardIndexColumns(outbox);
        if (!before.isEmpty()) {
            assertThat(before).as("version 4").containsExactly("aggregate_type", "aggregate_id", "publish_status", "id");
            assertThat(after).as("version 5").containsExactly("aggregate_type", "aggregate_id", "publish_status", "deleted", "id");
        }
        inTx(c -> v4.outbox().write(c, OutboxEvent.builder().eventNo("V5-1").aggregate("ORDER", "O-1")
                .eventType("X").channel("MQ").payload("{}").build()));
        assertThat(count(outbox)).isEqualTo(301);
    }

    @Test
    final void aPopulatedInstallOfVersionFiveGetsTheLeaseTableAndTheArchiveTraceIndexWithEveryRowKept() throws Exception {
        Postbox v5 = newPostbox(b -> b.tablePrefix("v5_"));
        v5.schema().install(5);
        assertThat(v5.schema().installedVersion()).isEqualTo(5);
        String outbox = v5.tables().outbox();
        for (int i = 0; i < 200; i++) {
            int n = i;
            inTx(c -> v5.outbox().write(c, OutboxEvent.builder().eventNo("V5-" + n).aggregate("ORDER", "O-" + n % 7)
                    .eventType("X").channel("MQ").payload("{}").build()));
        }
        inTx(c -> v5.compensations().once(c, "ORDER", "O-1", "CANCEL", conn -> "done"));
        exec("UPDATE " + outbox + " SET publish_status = 2 WHERE id % 3 = 0");
        exec("UPDATE " + outbox + " SET deleted = 1 WHERE id % 10 = 3");
        String census = "SELECT COUNT(*) * 1000 + SUM(publish_status * 10 + deleted) FROM " + outbox;
        long rows = queryLong(census);
        assertThat(tableExists(v5.tables().jobLease())).as("version 5 has no lease table").isFalse();

        v5.schema().install();

        assertThat(v5.schema().installedVersion()).isEqualTo(10).isEqualTo(Schema.VERSIONS.size());
        assertThat(queryLong(census)).as("every row with its status and deleted flag").isEqualTo(rows);
        assertThat(count(v5.tables().compensationLog())).isEqualTo(1);
        assertThat(count("v5_postbox_schema")).as("one row per version").isEqualTo(10);
        assertThat(indexedColumns(v5.tables().outboxArchive())).as("version 7: archived events by trace id")
                .contains("trace_id");
        assertThat(columns(v5.tables().jobLease())).containsExactlyInAnyOrder("job_name", "owner", "lease_until",
                "acquired_time", "renewed_time", "version", "update_time");
        try (var pool = dev.postbox.internal.poll.Pools.own(ds, "v5-lease", 2)) {
            var lease = new dev.postbox.internal.poll.JobLease(v5.dialect(), pool, v5.tables().jobLease(), "sweep",
                    "node-a", java.time.Duration.ofSeconds(30));
            assertThat(lease.acquire()).isTrue();
            assertThat(new dev.postbox.internal.poll.JobLease(v5.dialect(), pool, v5.tables().jobLease(), "sweep",
                    "node-b", java.time.Duration.ofSeconds(30)).acquire()).isFalse();
        }
        assertThat(count(v5.tables().jobLease())).isEqualTo(1);
        inTx(c -> v5.outbox().write(c, OutboxEvent.builder().eventNo("V6-1").aggregate("ORDER", "O-1")
                .eventType("X").channel("MQ").payload("{}").build()));
        assertThat(count(outbox)).isEqualTo(201);
    }

    @Test
    final void aPopulatedInstallOfVersionSevenGetsTheOperationsTablesAndKeepsItsAdminLog() throws Exception {
        Postbox v7 = newPostbox(b -> b.tablePrefix("v7_"));
        v7.schema().install(7);
        for (int i = 0; i < 20; i++) {
            int n = i;
            inTx(c -> v7.outbox().write(c, OutboxEvent.builder().eventNo("V7-" + n).aggregate("ORDER", "O-" + n % 3)
                    .eventType("X").channel("MQ").payload("{}").build()));
        }
        exec("UPDATE " + v7.tables().outbox() + " SET publish_status = 5 WHERE id % 2 = 0");
        assertThat(v7.admin().retryWhere(dev.postbox.admin.AdminFilter.status(dev.postbox.outbox.OutboxStatus.DEAD, 100),
                "ops", "before the upgrade")).isEqualTo(10);
        assertThat(tableExists(v7.tables().eventAttempt())).as("version 7 has no attempt table").isFalse();

        v7.schema().install();

        assertThat(v7.schema().installedVersion()).isEqualTo(10);
        assertThat(count(v7.tables().adminLog())).as("the admin log of version 7 is kept").isEqualTo(10);
        assertThat(queryLong("SELECT COUNT(*) FROM " + v7.tables().adminLog() + " WHERE action_id IS NULL"))
                .as("rows from before version 8 belong to no action").isEqualTo(10);
        assertThat(columns(v7.tables().eventAttempt())).containsExactlyInAnyOrder("id", "event_kind", "event_id",
                "event_no", "attempt", "outcome", "error", "instance", "next_retry_time", "create_time");
        assertThat(columns(v7.tables().adminAction())).contains("filter_text", "dry_run_count", "cap",
                "changed_count", "action_status", "actor", "reason");
        assertThat(columns(v7.tables().relayInstance())).contains("instance", "role", "last_seen_time");
        assertThat(columns(v7.tables().relayStats())).contains("window_start", "succeeded", "latency_hist");
        assertThat(indexedColumns(v7.tables().eventAttempt())).contains("event_no", "create_time");
        exec("INSERT INTO " + v7.tables().eventAttempt() + " (event_kind, event_id, event_no, attempt, outcome,"
                + " create_time) VALUES ('OUTBOX', 1, 'V7-0', 1, 'FAILED', CURRENT_TIMESTAMP)");
        exec("INSERT INTO " + v7.tables().adminAction() + " (action, target, filter_text, action_status, actor, reason,"
                + " create_time) VALUES ('RETRY', 'OUTBOX', 'status:dead', 'DONE', 'ops', 'test', CURRENT_TIMESTAMP)");
        assertThat(count(v7.tables().eventAttempt()) + count(v7.tables().adminAction()))
                .as("the database assigns ids in the new tables").isEqualTo(2);
    }

    @Test
    final void aPopulatedInstallOfVersionNineGetsTheMessageTraceContextAndKeepsItsRows() throws Exception {
        Postbox v9 = newPostbox(b -> b.tablePrefix("v9_"));
        v9.schema().install(9);
        assertThat(columns(v9.tables().message())).as("version 9 has no trace context").doesNotContain("trace_context");
        for (String table : new String[] {v9.tables().message(), v9.tables().messageArchive()}) {
            boolean archive = table.equals(v9.tables().messageArchive());
            exec("INSERT INTO " + table + " (id, event_no, event_type, biz_type, biz_id, event_source, event_payload,"
                    + " event_status, retry_count, max_retry_count, trace_id, version, deleted, create_time, update_time"
                    + (archive ? ", archived_time" : "") + ") VALUES (1, 'V9-1', 'ORDER_PAID', 'ORDER', 'O-1', 'app', '{}',"
                    + " 0, 0, 3, '4bf92f3577b34da6a3ce929d0e0e4736', 0, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
                    + (archive ? ", CURRENT_TIMESTAMP" : "") + ")");
        }

        v9.schema().install();

        assertThat(v9.schema().installedVersion()).isEqualTo(10);
        assertThat(columns(v9.tables().message())).contains("trace_id", "trace_context");
        assertThat(columns(v9.tables().messageArchive())).as("archived rows keep it too").contains("trace_context");
        var old = v9.queries().messages().byEventNo("V9-1").orElseThrow();
        assertThat(old.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(old.traceContext()).as("a row from before version 10 has none").isEmpty();
        exec("UPDATE " + v9.tables().message() + " SET trace_context = '{\"traceparent\":"
                + "\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}' WHERE event_no = 'V9-1'");
        assertThat(v9.queries().messages().byEventNo("V9-1").orElseThrow().traceContext())
                .containsExactly(java.util.Map.entry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        exec("UPDATE " + v9.tables().message() + " SET trace_context = 'not json' WHERE event_no = 'V9-1'");
        assertThat(v9.queries().messages().byEventNo("V9-1").orElseThrow().traceContext())
                .as("a context set by hand that is no JSON object counts as none; the row still reads").isEmpty();
    }

    /** The columns that lead an index of {@code table}. */
    private java.util.Set<String> indexedColumns(String table) throws Exception {
        java.util.Set<String> out = new java.util.HashSet<>();
        try (Connection c = ds.getConnection();
             var rs = c.getMetaData().getIndexInfo(c.getCatalog(), c.getSchema(),
                     db.kind().equals("h2") ? table.toUpperCase(java.util.Locale.ROOT) : table, false, false)) {
            while (rs.next()) {
                if (rs.getShort("ORDINAL_POSITION") == 1 && rs.getString("COLUMN_NAME") != null) {
                    out.add(rs.getString("COLUMN_NAME").toLowerCase(java.util.Locale.ROOT));
                }
            }
        }
        return out;
    }

    private boolean tableExists(String table) throws Exception {
        try (Connection c = ds.getConnection();
             var rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(),
                     db.kind().equals("h2") ? table.toUpperCase(java.util.Locale.ROOT) : table, new String[] {"TABLE"})) {
            return rs.next();
        }
    }

    private void insertOld(String sql, long id, java.time.Instant time, String json) throws Exception {
        try (Connection c = ds.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setLong(i++, id);
            if (json != null) {
                postbox.dialect().bindJson(ps, i++, json);
            }
            postbox.dialect().bindTime(ps, i++, time);
            postbox.dialect().bindTime(ps, i++, time);
            if (sql.contains("archived_time")) {
                postbox.dialect().bindTime(ps, i, time);
            }
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    final void renderedScriptsUseOnlyTheConfiguredPrefix() {
        String sql = newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(0).sql();
        assertThat(sql).contains("CREATE TABLE acme_outbox_event", "CREATE TABLE acme_message_event",
                "CREATE TABLE acme_consume_log", "CREATE TABLE acme_compensation_log",
                "CREATE TABLE acme_outbox_event_archive");
        assertThat(newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(1).sql()).contains("acme_admin_log")
                .doesNotContainPattern("\\bbiz_(outbox|admin)");
        assertThat(newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(2).sql())
                .contains("acme_outbox_event", "acme_message_event", "acme_consume_log", "acme_compensation_log", "acme_admin_log")
                .doesNotContainPattern("\\bbiz_(outbox|message|consume|compensation|admin)");
        assertThat(sql).doesNotContainPattern("\\bbiz_(outbox|message|consume|compensation)");
        assertThat(newPostbox(b -> b.tablePrefix("acme_")).schema().scripts().get(5).sql())
                .contains("CREATE TABLE acme_job_lease")
                .doesNotContainPattern("\\bbiz_");
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

    @Test
    final void inspectingAnEmptyDatabaseNamesEveryTableAndEveryScript() {
        Postbox none = newPostbox(b -> b.tablePrefix("none_"));
        SchemaState state = none.schema().inspect();
        assertThat(state.current()).isFalse();
        assertThat(state.versionRecorded()).isFalse();
        assertThat(state.foundVersion()).isZero();
        assertThat(state.expectedVersion()).isEqualTo(Schema.VERSIONS.size());
        assertThat(state.missingTables()).hasSize(15).startsWith("none_message_event", "none_outbox_event")
                .contains("none_consume_log", "none_compensation_log", "none_outbox_event_archive", "none_job_lease",
                        "none_relay_stats", "none_postbox_schema")
                .allMatch(t -> t.startsWith("none_"));
        String folder = none.dialect().schemaFolder();
        assertThat(state.pendingScripts()).hasSize(Schema.VERSIONS.size())
                .startsWith("db/postbox/" + folder + "/V1__postbox_tables.sql")
                .endsWith("db/postbox/" + folder + "/V10__message_trace_context.sql");
        assertThat(state.pendingScripts()).allMatch(r -> Schema.class.getClassLoader().getResource(r) != null);
        assertThat(state.database()).as("names the database, never a URL parameter").containsIgnoringCase(db.name()).doesNotContain("?");
    }

    @Test
    final void anInstalledSchemaIsCurrent() {
        SchemaState state = postbox.schema().inspect();
        assertThat(state.current()).as(state.toString()).isTrue();
        assertThat(state.foundVersion()).isEqualTo(Schema.VERSIONS.size());
        assertThat(state.versionRecorded()).isTrue();
        assertThat(state.missingTables()).isEmpty();
        assertThat(state.pendingScripts()).isEmpty();
    }

    @Test
    final void anOlderInstallIsNotCurrentAndNamesTheScriptsStillToRun() {
        Postbox v8 = newPostbox(b -> b.tablePrefix("v8_"));
        v8.schema().install(8);
        SchemaState state = v8.schema().inspect();
        assertThat(state.current()).isFalse();
        assertThat(state.foundVersion()).isEqualTo(8);
        assertThat(state.versionRecorded()).isTrue();
        assertThat(state.missingTables()).isEmpty();
        assertThat(state.pendingScripts()).containsExactly("db/postbox/" + v8.dialect().schemaFolder() + "/V9__schema_version.sql",
                "db/postbox/" + v8.dialect().schemaFolder() + "/V10__message_trace_context.sql");
        v8.schema().install();
        assertThat(v8.schema().inspect().current()).isTrue();
    }

    @Test
    final void theScriptsRunByAnotherToolRecordTheirVersion() throws Exception {
        Postbox byHand = newPostbox(b -> b.tablePrefix("hand_"));
        runScripts(byHand, Schema.VERSIONS.size());
        SchemaState state = byHand.schema().inspect();
        assertThat(state.current()).as(state.toString()).isTrue();
        assertThat(state.foundVersion()).isEqualTo(Schema.VERSIONS.size());
        byHand.schema().install();
        assertThat(count("hand_postbox_schema")).as("the installer found nothing to do: one row per script from V9 on")
                .isEqualTo(Schema.VERSIONS.size() - 8);
    }

    @Test
    final void tablesFromTheScriptsBeforeTheVersionTableAreKnownByTheirTables() throws Exception {
        Postbox old = newPostbox(b -> b.tablePrefix("pre_"));
        runScripts(old, 8);
        SchemaState state = old.schema().inspect();
        assertThat(state.current()).isFalse();
        assertThat(state.versionRecorded()).isFalse();
        assertThat(state.foundVersion()).as("inferred from the tables").isEqualTo(8);
        assertThat(state.missingTables()).containsExactly("pre_postbox_schema");
        assertThat(state.pendingScripts()).containsExactly("db/postbox/" + old.dialect().schemaFolder() + "/V9__schema_version.sql",
                "db/postbox/" + old.dialect().schemaFolder() + "/V10__message_trace_context.sql");
        old.schema().install();
        assertThat(old.schema().inspect().current()).isTrue();
        assertThat(count("pre_postbox_schema")).as("one row per version").isEqualTo(Schema.VERSIONS.size());
    }

    private void runScripts(Postbox target, int upTo) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (Schema.Script script : target.schema().scripts().subList(0, upTo)) {
                for (String sql : Schema.statements(script.sql())) {
                    st.execute(sql);
                }
            }
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
