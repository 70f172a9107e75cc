package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Schema;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Postbox's migrations through the application's Liquibase (4.x), in a change log table of their own, under the default
 * {@code postbox.schema.mode}: every version on an empty schema, nothing on the next start, the version found recorded as
 * run for tables made before, the application's own change log first and apart; Flyway keeps them when it is there
 * too. Written once, bound per database; run on both Boot lines.
 */
public abstract class LiquibaseMigrationsContract {

    private TestDatabase db;

    /** A fresh, empty database of the binding's kind. */
    protected abstract TestDatabase newDatabase();

    @BeforeEach
    final void createDatabase() {
        db = newDatabase();
    }

    @AfterEach
    final void dropDatabase() {
        db.close();
    }

    /** The application with Liquibase and without Flyway (its classes hidden, as in an application that has none). */
    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("org.flywaydb"))
                .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE, BootLine.DATA_SOURCE_TRANSACTION_MANAGER,
                        PostboxAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user(),
                        "spring.datasource.hikari.maximum-pool-size=4", "postbox.relay.enabled=false",
                        "postbox.worker.enabled=false");
    }

    private List<String> scriptNames() {
        return Postbox.builder(db.unpooledDataSource()).build().schema().scripts().stream().map(Schema.Script::fileName).toList();
    }

    /** "ID:EXECTYPE" of each row of the change log {@code table}, in the order they ran; empty when there is no table. */
    private List<String> changeLog(String table) throws SQLException {
        String name = actualName(table);
        if (name == null) {
            return List.of();
        }
        return new JdbcTemplate(db.unpooledDataSource()).query(
                "SELECT id, exectype FROM " + name + " ORDER BY orderexecuted",
                (rs, n) -> rs.getString(1) + ":" + rs.getString(2));
    }

    private boolean tableExists(String table) throws SQLException {
        return actualName(table) != null;
    }

    /** The table's name as the database spells it (Liquibase writes DATABASECHANGELOG in capitals), or null. */
    private String actualName(String table) throws SQLException {
        try (Connection c = db.unpooledDataSource().getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            for (String name : List.of(table, table.toUpperCase(java.util.Locale.ROOT))) {
                try (ResultSet rs = md.getTables(c.getCatalog(), c.getSchema(), name, new String[]{"TABLE"})) {
                    if (rs.next()) {
                        return rs.getString("TABLE_NAME");
                    }
                }
            }
        }
        return null;
    }

    private List<String> executed(List<String> ids) {
        return ids.stream().map(id -> id + ":EXECUTED").toList();
    }

    @Test
    final void postboxMigrationsRunThroughLiquibaseInAChangeLogOfTheirOwn() throws Exception {
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
        });
        List<String> first = changeLog("biz_postbox_liquibase_changelog");
        assertThat(first).containsExactlyElementsOf(executed(scriptNames()));
        assertThat(tableExists("databasechangelog")).as("the application's default change log is not touched").isFalse();
        assertThat(tableExists("biz_postbox_flyway_history")).isFalse();

        runner().run(ctx -> assertThat(ctx).hasNotFailed());
        assertThat(changeLog("biz_postbox_liquibase_changelog")).as("nothing to run on the next start").isEqualTo(first);
    }

    @Test
    final void theApplicationsOwnChangeLogRunsFirstInItsOwnTable() throws Exception {
        runner().withConfiguration(AutoConfigurations.of(BootLine.LIQUIBASE))
                .withPropertyValues("spring.liquibase.change-log=classpath:db/postbox-test-app-liquibase/changelog.sql")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(javax.sql.DataSource.class));
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM app_customer", Integer.class)).isZero();
                    assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
                    assertThat(ctx.getBeanFactory().getBeanDefinition("postbox").getDependsOn())
                            .as("Postbox's migrations wait for the application's change log").contains("liquibase");
                });
        assertThat(changeLog("databasechangelog")).containsExactly("1:EXECUTED");
        assertThat(changeLog("biz_postbox_liquibase_changelog")).containsExactlyElementsOf(executed(scriptNames()));
    }

    @Test
    final void tablesMadeBeforeLiquibaseAreRecordedAsRunAndOnlyTheLaterVersionsRun() throws Exception {
        Postbox old = Postbox.builder(db.unpooledDataSource()).build();
        try (Connection c = db.unpooledDataSource().getConnection(); Statement st = c.createStatement()) {
            for (Schema.Script script : old.schema().scripts().subList(0, 8)) {
                for (String sql : script.statements()) {
                    st.execute(sql);
                }
            }
        }
        assertThat(old.schema().inspect().foundVersion()).isEqualTo(8);
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed(); // running V1..V8 again would fail: their tables exist
            assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
        });
        assertThat(changeLog("biz_postbox_liquibase_changelog")).containsExactlyElementsOf(executed(scriptNames()));
    }

    @Test
    final void aTablePrefixHasItsOwnTablesAndChangeLog() throws Exception {
        runner().withPropertyValues("postbox.table-prefix=shop_").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            Postbox postbox = ctx.getBean(Postbox.class);
            assertThat(postbox.tables().outbox()).isEqualTo("shop_outbox_event");
            assertThat(postbox.schema().inspect().current()).isTrue();
        });
        assertThat(changeLog("shop_postbox_liquibase_changelog")).hasSize(scriptNames().size());
        assertThat(tableExists("shop_postbox_liquibase_lock")).isTrue();
        assertThat(tableExists("biz_postbox_liquibase_changelog")).isFalse();
    }

    @Test
    final void flywayKeepsPostboxsMigrationsWhenBothAreThere() throws Exception {
        runner().withClassLoader(getClass().getClassLoader()).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(SchemaMigrations.class)).isInstanceOf(FlywaySchemaMigrations.class);
        });
        assertThat(tableExists("biz_postbox_flyway_history")).isTrue();
        assertThat(tableExists("biz_postbox_liquibase_changelog")).isFalse();

        runner().withClassLoader(getClass().getClassLoader()).withPropertyValues("spring.flyway.enabled=false")
                .run(ctx -> assertThat(ctx.getBean(SchemaMigrations.class)).isInstanceOf(LiquibaseSchemaMigrations.class));
    }

    @Test
    final void aFailingMigrationFailsTheStartUpNamingLiquibaseAndItsTable() throws Exception {
        try (Connection c = db.unpooledDataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE biz_outbox_event (id INT PRIMARY KEY)"); // in V1's way, but no version shows
        }
        runner().run(ctx -> assertThat(ctx).hasFailed().getFailure().hasStackTraceContaining(
                "Postbox's Liquibase migrations failed (change log table biz_postbox_liquibase_changelog)"));
    }
}
