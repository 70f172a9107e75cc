package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.Schema;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A real {@link SpringApplication} whose start-up Postbox stops: Boot's failure report ("APPLICATION FAILED TO
 * START") shows Postbox's failure analysis, one description and one action, instead of a stack trace; nothing has
 * polled. Written once, bound per database.
 */
@ExtendWith(OutputCaptureExtension.class)
public abstract class StartupFailureContract {

    private TestDatabase db;

    /** A fresh, empty database of the binding's kind. */
    protected abstract TestDatabase newDatabase();

    /**
     * The properties under which this database gets no Postbox tables at start-up: on a server database the default
     * mode without Flyway or Liquibase (both are on the test class path, so spring.flyway.enabled=false and
     * spring.liquibase.enabled=false); on H2, which the default mode installs, postbox.schema.mode=never.
     */
    protected abstract List<String> noInstallProperties();

    /** The mode {@link #noInstallProperties()} sets, as the failure names it. */
    protected abstract String noInstallMode();

    @BeforeEach
    final void createDatabase() {
        db = newDatabase();
    }

    @AfterEach
    final void dropDatabase() {
        db.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(PostboxAutoConfiguration.class)
    static class App {
    }

    /** Runs a SpringApplication of {@link App} and {@code more} on this database with {@code properties}, then closes it. */
    protected final void start(List<String> properties, Class<?>... more) {
        SpringApplication app = new SpringApplication(App.class);
        app.addPrimarySources(List.of(more));
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setRegisterShutdownHook(false);
        app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
        DataSource ds = db.unpooledDataSource();
        app.addInitializers(ctx -> ((GenericApplicationContext) ctx).registerBean("dataSource", DataSource.class, () -> ds));
        List<String> args = new ArrayList<>(List.of("--spring.application.name=startup-test",
                "--postbox.relay.poll-interval-max=50ms", "--postbox.worker.poll-interval-max=50ms"));
        properties.forEach(p -> args.add("--" + p));
        app.run(args.toArray(String[]::new)).close();
    }

    /** The report Boot printed: from its banner line to the end of the output. */
    protected static String report(CapturedOutput output) {
        String all = output.getAll();
        int at = all.indexOf("APPLICATION FAILED TO START");
        assertThat(at).as("Boot's failure report in the output:%n%s", all).isNotNegative();
        assertThat(all).as("reported by an analyzer, not logged as a stack trace").doesNotContain("Application run failed");
        return all.substring(at);
    }

    private String folder() {
        return Postbox.builder(db.unpooledDataSource()).build().dialect().schemaFolder();
    }

    @Test
    final void aMissingSchemaStopsTheStartUpNamingTheTablesTheDatabaseAndWhatToDo(CapturedOutput output) {
        assertThatThrownBy(() -> start(noInstallProperties())).rootCause().isInstanceOf(PostboxSchemaException.class);
        String report = report(output);
        String description = report.substring(report.indexOf("Description:"), report.indexOf("Action:"));
        String action = report.substring(report.indexOf("Action:"));
        assertThat(description).contains("The Postbox tables are missing", "biz_outbox_event", "biz_message_event",
                        "biz_consume_log", "biz_compensation_log", "biz_outbox_event_archive", "biz_postbox_schema",
                        "postbox.schema.mode=" + noInstallMode())
                .containsIgnoringCase(db.name());
        assertThat(action).contains("postbox.schema.mode=always",
                "db/postbox/" + folder() + "/V1__postbox_tables.sql to V10__message_trace_context.sql");
        assertThat(report).as("no stack trace").doesNotContain("\tat ");
        assertThat(Postbox.builder(db.unpooledDataSource()).build().schema().installedVersion())
                .as("nothing was installed").isZero();
    }

    @Test
    final void anOldSchemaStopsTheStartUpNamingTheMigrationStillToRun(CapturedOutput output) throws Exception {
        Postbox old = Postbox.builder(db.unpooledDataSource()).build();
        try (Connection c = db.unpooledDataSource().getConnection(); Statement st = c.createStatement()) {
            for (Schema.Script script : old.schema().scripts().subList(0, 8)) {
                for (String sql : script.statements()) {
                    st.execute(sql);
                }
            }
        }
        assertThatThrownBy(() -> start(List.of("postbox.schema.mode=never"))).rootCause()
                .isInstanceOf(PostboxSchemaException.class);
        String report = report(output);
        String action = report.substring(report.indexOf("Action:"));
        assertThat(report.substring(0, report.indexOf("Action:")))
                .contains("record no schema version (their tables are those of version 8)", "needs version 10",
                        "biz_postbox_schema");
        assertThat(action).contains("db/postbox/" + folder() + "/V9__schema_version.sql to V10__message_trace_context.sql",
                        "postbox.schema.mode=always")
                .doesNotContain("V1__");
    }

    @Test
    final void anInvalidPropertyStopsTheStartUpNamingThePropertyAndItsRule(CapturedOutput output) {
        assertThatThrownBy(() -> start(List.of("postbox.schema.mode=always", "postbox.relay.batch-size=0")))
                .rootCause().isInstanceOf(ValidationException.class);
        String report = report(output);
        assertThat(report.substring(0, report.indexOf("Action:")))
                .contains("Invalid Postbox property postbox.relay.batch-size: must be");
        assertThat(report.substring(report.indexOf("Action:")))
                .contains("Change postbox.relay.batch-size", "POSTBOX_RELAY_BATCHSIZE");
        assertThat(report).as("no stack trace").doesNotContain("\tat ");
    }

    @Test
    final void aCurrentSchemaStartsWithoutAFailure(CapturedOutput output) {
        Postbox.builder(db.unpooledDataSource()).build().schema().install();
        start(noInstallProperties());
        assertThat(output.getAll()).doesNotContain("APPLICATION FAILED TO START");
    }
}
