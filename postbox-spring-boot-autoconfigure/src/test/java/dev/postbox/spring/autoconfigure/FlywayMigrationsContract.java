package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Schema;
import dev.postbox.jdbc.SchemaState;
import dev.postbox.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Postbox's migrations through the application's Flyway, in a history table of their own, under the default
 * {@code postbox.schema.mode}: every version on an empty schema, nothing on the next start, the version found as the
 * baseline of tables made before, the application's own migrations first and apart. Written once, bound per database.
 */
public abstract class FlywayMigrationsContract {

    private static final List<String> EVERY_VERSION =
            IntStream.rangeClosed(1, 10).mapToObj(Integer::toString).toList();

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

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE, BootLine.DATA_SOURCE_TRANSACTION_MANAGER,
                        PostboxAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user(),
                        "spring.datasource.hikari.maximum-pool-size=4", "postbox.relay.enabled=false",
                        "postbox.worker.enabled=false");
    }

    /** "version:TYPE" of each row of the Flyway history {@code table}, as Flyway itself reads it. */
    private List<String> history(String table) {
        MigrationInfo[] applied = Flyway.configure().dataSource(db.unpooledDataSource()).table(table).locations(new String[0])
                .load().info().applied();
        return Arrays.stream(applied).map(m -> m.getVersion().getVersion() + ":" + m.getType()).toList();
    }

    private static List<String> versions(List<String> history) {
        return history.stream().map(h -> h.substring(0, h.indexOf(':'))).toList();
    }

    @Test
    final void postboxMigrationsRunThroughFlywayInAHistoryOfTheirOwn() {
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            SchemaState state = ctx.getBean(Postbox.class).schema().inspect();
            assertThat(state.current()).as(state.toString()).isTrue();
        });
        List<String> first = history("biz_postbox_flyway_history");
        assertThat(versions(first)).containsExactlyElementsOf(EVERY_VERSION);
        assertThat(first).noneMatch(h -> h.contains("BASELINE"));
        assertThat(history("flyway_schema_history")).as("the application's default history is not touched").isEmpty();

        runner().run(ctx -> assertThat(ctx).hasNotFailed());
        assertThat(history("biz_postbox_flyway_history")).as("nothing to migrate on the next start").isEqualTo(first);
    }

    @Test
    final void theApplicationsOwnMigrationsRunFirstInTheirOwnHistory() {
        runner().withConfiguration(AutoConfigurations.of(BootLine.FLYWAY))
                .withPropertyValues("spring.flyway.locations=classpath:db/postbox-test-app")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(javax.sql.DataSource.class));
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM app_customer", Integer.class)).isZero();
                    assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
                });
        assertThat(history("flyway_schema_history")).containsExactly("1:SQL");
        // the schema held the application's tables, none of Postbox's: Postbox's history starts from nothing
        List<String> postbox = history("biz_postbox_flyway_history");
        assertThat(postbox).first().isEqualTo("0:BASELINE");
        assertThat(versions(postbox.subList(1, postbox.size()))).containsExactlyElementsOf(EVERY_VERSION);
    }

    @Test
    final void tablesMadeBeforeFlywayAreItsBaselineAndOnlyTheLaterVersionsRun() throws Exception {
        Postbox old = Postbox.builder(db.unpooledDataSource()).build();
        try (Connection c = db.unpooledDataSource().getConnection(); Statement st = c.createStatement()) {
            for (Schema.Script script : old.schema().scripts().subList(0, 8)) {
                for (String sql : script.statements()) {
                    st.execute(sql);
                }
            }
        }
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
        });
        assertThat(history("biz_postbox_flyway_history")).containsExactly("8:BASELINE", "9:JDBC", "10:JDBC");
    }

    @Test
    final void aTablePrefixHasItsOwnTablesAndHistory() {
        runner().withPropertyValues("postbox.table-prefix=shop_").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            Postbox postbox = ctx.getBean(Postbox.class);
            assertThat(postbox.tables().outbox()).isEqualTo("shop_outbox_event");
            assertThat(postbox.schema().inspect().current()).isTrue();
        });
        assertThat(versions(history("shop_postbox_flyway_history"))).containsExactlyElementsOf(EVERY_VERSION);
        assertThat(history("biz_postbox_flyway_history")).isEmpty();
    }

    @Test
    final void modeAlwaysKeepsPostboxsInstallerBesideFlyway() {
        runner().withPropertyValues("postbox.schema.mode=always").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(Postbox.class).schema().installedVersion()).isEqualTo(10);
        });
        assertThat(history("biz_postbox_flyway_history")).isEmpty();
    }
}
