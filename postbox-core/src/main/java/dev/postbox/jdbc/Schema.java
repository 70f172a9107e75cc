package dev.postbox.jdbc;

import dev.postbox.common.PostboxException;
import dev.postbox.common.PostboxSqlException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Postbox's DDL. The versioned files live in the jar under {@code db/postbox/<dialect>/V<n>__*.sql}
 * with the default prefix {@code biz_}; a Flyway or Liquibase user can point a separate migration
 * history at that folder, or take {@link #scripts()} (rendered for the configured prefix) into their
 * own. {@link #install()} applies what is missing and records it in {@link TableNames#schemaHistory()}, which the
 * scripts from version 9 on also write themselves, so a schema migrated by any tool carries its version;
 * {@link #inspect()} compares the database with what this Postbox expects. Thread-safe.
 */
public final class Schema {

    /** Every schema version, in order. A new version appends a file name here. */
    static final List<String> VERSIONS = List.of("V1__postbox_tables.sql", "V2__relay.sql", "V3__database_ids.sql",
            "V4__relay_leases.sql", "V5__guard_index.sql", "V6__job_leases.sql", "V7__archive_lookups.sql",
            "V8__operations.sql", "V9__schema_version.sql", "V10__message_trace_context.sql");

    private static final Logger log = LoggerFactory.getLogger(Schema.class);
    private static final Pattern DEFAULT_NAMES =
            Pattern.compile("\\bbiz_(?=(outbox_event|message_event|consume_log|compensation_log|admin_log|admin_action|job_lease|event_attempt|relay_instance|relay_stats|postbox_schema)(\\b|_))");

    private final DataSource dataSource;
    private final Dialect dialect;
    private final TableNames tables;
    private final Clock clock;

    public Schema(DataSource dataSource, Dialect dialect, TableNames tables, Clock clock) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.tables = tables;
        this.clock = clock;
    }

    /** One versioned script: its file name and its SQL rendered for the configured prefix. */
    public record Script(int version, String fileName, String sql) {

        /** The script's statements in order, each without its closing semicolon, for a tool that runs them one by one. */
        public List<String> statements() {
            return Schema.statements(sql);
        }
    }

    /** All versioned scripts of this dialect, rendered for the configured table prefix. */
    public List<Script> scripts() {
        List<Script> scripts = new ArrayList<>();
        for (int i = 0; i < VERSIONS.size(); i++) {
            String file = VERSIONS.get(i);
            scripts.add(new Script(i + 1, file, render(read(dialect.schemaFolder() + "/" + file))));
        }
        return scripts;
    }

    /**
     * Creates the tables and indexes that are missing, version by version, and records each applied
     * version. Idempotent and safe to call from several processes at once on PostgreSQL and MySQL
     * (serialized by a database lock). Tables created earlier by the user's own Flyway/Liquibase from
     * these scripts are recognised and recorded as version 1 without being touched.
     */
    public void install() {
        install(VERSIONS.size());
    }

    /** {@link #install()} up to version {@code upTo} only (what an older Postbox installed; for the upgrade tests). */
    void install(int upTo) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                withLock(c, () -> installLocked(c, upTo));
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("installing the Postbox schema (" + dialect.name() + ", prefix '"
                    + tables.prefix() + "')", e);
        }
    }

    /** The highest schema version recorded as installed, 0 if none. */
    public int installedVersion() {
        try (Connection c = dataSource.getConnection()) {
            return installedVersion(c);
        } catch (SQLException e) {
            throw new PostboxSqlException("reading the Postbox schema version", e);
        }
    }

    /**
     * What the database holds against what this Postbox expects: missing tables, the version found, the scripts
     * still to run. Reads only; for a check before anything uses the tables (the Spring starter fails its start-up
     * on a schema that is not {@link SchemaState#current()}).
     */
    public SchemaState inspect() {
        try (Connection c = dataSource.getConnection()) {
            return new SchemaInspection(dialect, tables).inspect(c);
        } catch (SQLException e) {
            throw new PostboxSqlException("inspecting the Postbox schema (" + dialect.name() + ", prefix '"
                    + tables.prefix() + "')", e);
        }
    }

    private void installLocked(Connection c, int upTo) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("""
                    CREATE TABLE IF NOT EXISTS %s (
                        version INT NOT NULL PRIMARY KEY,
                        script VARCHAR(200) NOT NULL,
                        installed_time VARCHAR(40) NOT NULL)""".formatted(tables.schemaHistory()));
        }
        int installed = installedVersion(c);
        if (installed == 0 && tableExists(c, tables.outbox())) {
            // made from the scripts by the user's own tool before the scripts recorded their version (version 9)
            installed = Math.max(1, new SchemaInspection(dialect, tables).inferredVersion(c));
            log.info("Postbox tables with prefix '{}' already exist; recording them as schema version {}",
                    tables.prefix(), installed);
            for (int v = 1; v <= installed; v++) {
                record(c, v, VERSIONS.get(v - 1));
            }
        }
        for (Script script : scripts()) {
            if (script.version() <= installed || script.version() > upTo) {
                continue;
            }
            log.info("Installing Postbox schema {} ({}) with prefix '{}'", script.fileName(), dialect.name(), tables.prefix());
            for (String sql : statements(script.sql())) {
                try (Statement st = c.createStatement()) {
                    st.execute(sql);
                }
            }
            if (installedVersion(c) < script.version()) { // from version 9 on a script records itself
                record(c, script.version(), script.fileName());
            }
        }
    }

    private int installedVersion(Connection c) throws SQLException {
        if (!tableExists(c, tables.schemaHistory())) {
            return 0;
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT MAX(version) FROM %s".formatted(tables.schemaHistory()))) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private void record(Connection c, int version, String script) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO %s (version, script, installed_time) VALUES (?, ?, ?)".formatted(tables.schemaHistory()))) {
            ps.setInt(1, version);
            ps.setString(2, script);
            ps.setString(3, clock.instant().toString());
            ps.executeUpdate();
        }
    }

    private static boolean tableExists(Connection c, String table) throws SQLException {
        DatabaseMetaData meta = c.getMetaData();
        for (String name : new String[] {table, table.toUpperCase(Locale.ROOT)}) {
            try (ResultSet rs = meta.getTables(c.getCatalog(), c.getSchema(), name, new String[] {"TABLE"})) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    private interface SqlWork {
        void run() throws SQLException;
    }

    private void withLock(Connection c, SqlWork work) throws SQLException {
        String lockName = "postbox_schema_" + tables.prefix();
        switch (dialect.name()) {
            case "postgresql" -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(hashtext(?))")) {
                    ps.setString(1, lockName);
                    ps.execute();
                }
                try {
                    work.run();
                } finally {
                    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(hashtext(?))")) {
                        ps.setString(1, lockName);
                        ps.execute();
                    }
                }
            }
            case "mysql" -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, 60)");) {
                    ps.setString(1, lockName);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next() || rs.getInt(1) != 1) {
                            throw new PostboxException("could not take the schema lock '" + lockName + "' within 60 s");
                        }
                    }
                }
                try {
                    work.run();
                } finally {
                    try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
                        ps.setString(1, lockName);
                        ps.execute();
                    }
                }
            }
            default -> {
                synchronized (Schema.class) {
                    work.run();
                }
            }
        }
    }

    String render(String sql) {
        return DEFAULT_NAMES.matcher(sql).replaceAll(java.util.regex.Matcher.quoteReplacement(tables.prefix()));
    }

    /** Splits a script into statements at semicolons that end a line; drops comment-only lines. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String sql = current.toString().strip();
                out.add(sql.substring(0, sql.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }

    private static String read(String path) {
        String resource = "db/postbox/" + path;
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new PostboxException("schema script " + resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new PostboxException("cannot read schema script " + resource, e);
        }
    }
}
