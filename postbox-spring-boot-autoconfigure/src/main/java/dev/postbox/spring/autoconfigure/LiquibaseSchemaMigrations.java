package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.jdbc.Schema;
import dev.postbox.jdbc.SchemaState;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.change.core.RawSQLChange;
import liquibase.changelog.ChangeSet;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.snapshot.SnapshotGeneratorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Postbox's versioned scripts run by the application's Liquibase (4.x), rendered for the configured table prefix, as
 * one change set per version ({@code id} the script's file name, author {@code postbox}) in a change log table of their
 * own ({@code <prefix>postbox_liquibase_changelog}, locked through {@code <prefix>postbox_liquibase_lock}), so they never
 * meet the application's change log, its {@code DATABASECHANGELOG} or {@code spring.liquibase.*}.
 *
 * <p>As with Flyway, tables that exist before this change log does (installed by {@code postbox.schema.mode=always}, or
 * made from the shipped files by another tool) are recorded as run up to the version they show ({@code changeLogSync})
 * and only the later versions run; a schema without Postbox's tables gets every version.
 */
final class LiquibaseSchemaMigrations implements SchemaMigrations {

    private static final Logger log = LoggerFactory.getLogger(LiquibaseSchemaMigrations.class);
    private static final String AUTHOR = "postbox";

    private final DataSource dataSource;

    LiquibaseSchemaMigrations(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The change log table of Postbox's migrations for the table prefix {@code prefix}. */
    static String changeLogTable(String prefix) {
        return prefix + "postbox_liquibase_changelog";
    }

    /** The lock table of Postbox's migrations for the table prefix {@code prefix}. */
    static String lockTable(String prefix) {
        return prefix + "postbox_liquibase_lock";
    }

    @Override
    public void migrate(Postbox postbox) {
        SchemaState before = postbox.schema().inspect();
        List<Schema.Script> scripts = postbox.schema().scripts();
        String prefix = postbox.tables().prefix();
        try (Connection c = dataSource.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            database.setDatabaseChangeLogTableName(changeLogTable(prefix));
            database.setDatabaseChangeLogLockTableName(lockTable(prefix));
            String path = "db/postbox/" + postbox.dialect().schemaFolder() + "/postbox-changelog";
            boolean fresh = !SnapshotGeneratorFactory.getInstance().hasDatabaseChangeLogTable(database);
            int found = before.foundVersion();
            if (fresh && found > 0) {
                Liquibase sync = new Liquibase(changeLog(path, scripts.stream().filter(s -> s.version() <= found).toList()),
                        new ClassLoaderResourceAccessor(), database);
                sync.changeLogSync(new Contexts(), new LabelExpression());
                log.info("Postbox schema version {} found before Liquibase: recorded as run in {}", found,
                        changeLogTable(prefix));
            }
            Liquibase liquibase = new Liquibase(changeLog(path, scripts), new ClassLoaderResourceAccessor(), database);
            liquibase.update(new Contexts(), new LabelExpression());
            log.info("Postbox schema migrated by Liquibase from version {} (change log table {})", found,
                    changeLogTable(prefix));
        } catch (SQLException | LiquibaseException e) {
            throw new IllegalStateException("Postbox's Liquibase migrations failed (change log table "
                    + changeLogTable(prefix) + "): " + e.getMessage(), e);
        }
    }

    /** One change set per script, each statement a raw SQL change run as it is (the scripts are split already). */
    private static DatabaseChangeLog changeLog(String path, List<Schema.Script> scripts) {
        DatabaseChangeLog changeLog = new DatabaseChangeLog(path);
        for (Schema.Script script : scripts) {
            ChangeSet set = new ChangeSet(script.fileName(), AUTHOR, false, false, path, null, null, changeLog);
            for (String sql : script.statements()) {
                RawSQLChange change = new RawSQLChange(sql);
                change.setSplitStatements(false);
                change.setStripComments(false);
                set.addChange(change);
            }
            changeLog.addChangeSet(set);
        }
        return changeLog;
    }

    @Override
    public String describe(Postbox postbox) {
        return "Liquibase (change log table " + changeLogTable(postbox.tables().prefix()) + ")";
    }
}
