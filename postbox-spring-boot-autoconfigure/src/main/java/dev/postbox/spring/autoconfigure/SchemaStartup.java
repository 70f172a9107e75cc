package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.common.PostboxDefaults;
import dev.postbox.jdbc.SchemaState;
import dev.postbox.spring.autoconfigure.PostboxProperties.SchemaMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What the starter does with Postbox's tables before anything may use them (the {@link Postbox} bean is not
 * returned before it): installs them as {@code postbox.schema.mode} says, or runs their migrations through the
 * application's Flyway, then checks that every table Postbox uses exists at this Postbox's schema version. A schema
 * that is missing or old fails the start-up with a {@link PostboxSchemaException} naming the tables, the database
 * and what to do, instead of a relay that logs "relation does not exist" every cycle.
 */
final class SchemaStartup {

    private static final Logger log = LoggerFactory.getLogger(SchemaStartup.class);

    private SchemaStartup() {
    }

    /**
     * Installs or migrates as configured, then checks; {@code migrations} is null without Flyway or Liquibase.
     * {@code always} means Postbox's installer on every database, also beside them; the default {@code embedded} means
     * Flyway (else Liquibase) where the application has it, else the installer on an embedded database only.
     */
    static void prepare(Postbox postbox, SchemaMode mode, SchemaMigrations migrations) {
        boolean migrate = mode == SchemaMode.EMBEDDED && migrations != null;
        boolean install = mode == SchemaMode.ALWAYS
                || (mode == SchemaMode.EMBEDDED && migrations == null && postbox.dialect().embedded());
        if (migrate) {
            migrations.migrate(postbox);
        } else if (install) {
            postbox.schema().install();
            log.info("Postbox schema installed (version {}, tables {}*)", postbox.schema().installedVersion(),
                    postbox.tables().prefix());
        }
        SchemaState state = postbox.schema().inspect();
        if (!state.current()) {
            throw failure(postbox, mode, migrate ? migrations.describe(postbox) : null, install, state);
        }
        log.debug("Postbox schema version {} found in {}", state.foundVersion(), state.database());
    }

    static PostboxSchemaException failure(Postbox postbox, SchemaMode mode, String migratedBy, boolean installed,
                                          SchemaState state) {
        String description = found(state) + " " + why(postbox, mode, migratedBy, installed);
        String action;
        if (migratedBy != null) {
            action = "Postbox's migrations are recorded as applied in " + migratedBy + " but their tables are not all"
                    + " there: delete the rows of the missing versions from that history table (or drop it) and start"
                    + " again, so that they run once more.";
        } else if (installed) {
            action = "The installer created the tables through another schema or catalog than the one Postbox's SQL"
                    + " finds: make the connection's default schema (PostgreSQL: currentSchema/search_path) the one"
                    + " holding the Postbox tables.";
        } else if (mode == SchemaMode.NEVER) {
            action = "Run the migrations " + scripts(postbox, state) + " from postbox-core's jar with your migration tool before"
                    + " the application starts" + prefixNote(postbox) + ", or set postbox.schema.mode=always to have"
                    + " Postbox install them at start-up.";
        } else {
            action = "Set postbox.schema.mode=always to have Postbox install and upgrade them at start-up; or put Flyway"
                    + " (flyway-core and its database module) or Liquibase (liquibase-core 4.x) on the class path: the"
                    + " starter then runs Postbox's migrations with a history table of their own; or run the migrations " + scripts(postbox, state)
                    + " from postbox-core's jar before the application starts" + prefixNote(postbox) + ".";
        }
        return new PostboxSchemaException(state, description, action);
    }

    private static String found(SchemaState s) {
        List<String> missing = s.missingTables();
        String where = " in " + s.database();
        if (!s.versionRecorded() && s.foundVersion() == 0) {
            return "The Postbox tables are missing" + where + ": " + String.join(", ", missing) + ".";
        }
        String version = s.versionRecorded()
                ? "are at schema version " + s.foundVersion()
                : "record no schema version (their tables are those of version " + s.foundVersion() + ")";
        return "The Postbox tables" + where + " " + version + "; this Postbox needs version " + s.expectedVersion()
                + (missing.isEmpty() ? "" : ", and these tables are missing: " + String.join(", ", missing)) + ".";
    }

    private static String why(Postbox postbox, SchemaMode mode, String migratedBy, boolean installed) {
        if (migratedBy != null) {
            return "They were migrated by " + migratedBy + ".";
        }
        if (installed) {
            return "The installer ran (postbox.schema.mode=" + name(mode) + ").";
        }
        if (mode == SchemaMode.NEVER) {
            return "postbox.schema.mode=never: the application installs them.";
        }
        return "postbox.schema.mode=embedded (the default) installs them through the application's Flyway or"
                + " Liquibase, which it does not have (or disables), or else on an embedded database only, which " + postbox.dialect().name()
                + " is not.";
    }

    /** {@code db/postbox/postgresql/V1__postbox_tables.sql to V10__message_trace_context.sql}. */
    private static String scripts(Postbox postbox, SchemaState s) {
        List<String> pending = s.pendingScripts();
        if (pending.isEmpty()) {
            return "in db/postbox/" + postbox.dialect().schemaFolder() + "/ that create the missing tables (every version"
                    + " is recorded as applied, so the tables were dropped since)";
        }
        String first = pending.get(0);
        if (pending.size() == 1) {
            return first;
        }
        String last = pending.get(pending.size() - 1);
        return first + " to " + last.substring(last.lastIndexOf('/') + 1);
    }

    private static String prefixNote(Postbox postbox) {
        String prefix = postbox.tables().prefix();
        if (prefix.equals(PostboxDefaults.TABLE_PREFIX)) {
            return "";
        }
        return " (the files name the tables with the prefix " + PostboxDefaults.TABLE_PREFIX + "; for postbox.table-prefix="
                + prefix + " run the scripts Postbox.schema().scripts() renders for it)";
    }

    private static String name(SchemaMode mode) {
        return mode.name().toLowerCase(java.util.Locale.ROOT);
    }
}
