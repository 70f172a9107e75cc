package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Schema;
import dev.postbox.jdbc.SchemaState;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.util.zip.CRC32;

/**
 * Postbox's versioned scripts run by the application's Flyway, rendered for the configured table prefix, in a
 * history table of their own ({@code <prefix>postbox_flyway_history}), so they never meet the application's own
 * migrations, locations or history. Flyway is configured here alone: {@code spring.flyway.*} stays the
 * application's.
 *
 * <p>Tables that exist before this history does (installed by {@code postbox.schema.mode=always}, or made from the
 * shipped files by another tool) are taken as the baseline at the version they record (or show); a schema without
 * Postbox's tables, however many of the application's it holds, gets every version.
 */
final class FlywaySchemaMigrations implements SchemaMigrations {

    private static final Logger log = LoggerFactory.getLogger(FlywaySchemaMigrations.class);

    private final DataSource dataSource;

    FlywaySchemaMigrations(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The history table of Postbox's migrations for the table prefix {@code prefix}. */
    static String historyTable(String prefix) {
        return prefix + "postbox_flyway_history";
    }

    @Override
    public void migrate(Postbox postbox) {
        SchemaState before = postbox.schema().inspect();
        String history = historyTable(postbox.tables().prefix());
        Flyway flyway = Flyway.configure(FlywaySchemaMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .table(history)
                .locations(new String[0]) // none: the application's db/migration is not Postbox's
                .javaMigrations(postbox.schema().scripts().stream().map(ScriptMigration::new)
                        .toArray(JavaMigration[]::new))
                // only when this history table does not exist yet: Flyway's check for an empty schema is meant for
                // a schema with one history, and this schema may hold the application's tables and history
                .baselineOnMigrate(true)
                .baselineVersion(Integer.toString(before.foundVersion()))
                .baselineDescription(before.foundVersion() == 0 ? "no Postbox tables yet"
                        : "Postbox schema " + before.foundVersion() + " found before Flyway")
                .load();
        MigrateResult result = flyway.migrate();
        log.info("Postbox schema migrated by Flyway from version {} to {} ({} migrations, history table {})",
                result.initialSchemaVersion, result.targetSchemaVersion, result.migrationsExecuted, history);
    }

    @Override
    public String describe(Postbox postbox) {
        return "Flyway (history table " + historyTable(postbox.tables().prefix()) + ")";
    }

    /** One of {@link Schema#scripts()} as a Flyway migration; its checksum is that of the rendered SQL. */
    private static final class ScriptMigration implements JavaMigration {

        private final Schema.Script script;

        ScriptMigration(Schema.Script script) {
            this.script = script;
        }

        @Override
        public MigrationVersion getVersion() {
            return MigrationVersion.fromVersion(Integer.toString(script.version()));
        }

        @Override
        public String getDescription() {
            String name = script.fileName();
            return name.substring(name.indexOf("__") + 2, name.lastIndexOf('.')).replace('_', ' ');
        }

        @Override
        public Integer getChecksum() {
            CRC32 crc = new CRC32();
            crc.update(script.sql().getBytes(StandardCharsets.UTF_8));
            return (int) crc.getValue();
        }

        @Override
        public boolean canExecuteInTransaction() {
            return true;
        }

        @Override
        public void migrate(Context context) throws Exception {
            try (Statement st = context.getConnection().createStatement()) {
                for (String sql : script.statements()) {
                    st.execute(sql);
                }
            }
        }
    }
}
