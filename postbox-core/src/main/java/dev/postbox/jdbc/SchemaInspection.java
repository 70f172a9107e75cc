package dev.postbox.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads which of Postbox's tables a database has and which schema version it records, without changing anything.
 * Runs on a connection in auto-commit mode: on PostgreSQL a failed probe would abort an open transaction.
 */
final class SchemaInspection {

    private final Dialect dialect;
    private final TableNames tables;

    SchemaInspection(Dialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.tables = tables;
    }

    /**
     * The tables each version creates, in order. A schema made from the scripts without its version recorded
     * (before version 9 the scripts did not record it) is taken to be at the last version whose tables all exist.
     */
    Map<Integer, List<String>> tablesByVersion() {
        Map<Integer, List<String>> v = new LinkedHashMap<>();
        v.put(1, List.of(tables.message(), tables.outbox(), tables.consumeLog(), tables.compensationLog(),
                tables.messageArchive(), tables.outboxArchive(), tables.consumeLog() + "_archive",
                tables.compensationLog() + "_archive"));
        v.put(2, List.of(tables.adminLog()));
        v.put(6, List.of(tables.jobLease()));
        v.put(8, List.of(tables.eventAttempt(), tables.adminAction(), tables.relayInstance(), tables.relayStats()));
        v.put(9, List.of(tables.schemaHistory()));
        return v;
    }

    SchemaState inspect(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        Set<String> present = tableNames(c);
        List<String> missing = new ArrayList<>();
        for (List<String> created : tablesByVersion().values()) {
            created.stream().filter(t -> !present.contains(t)).forEach(missing::add);
        }
        boolean recorded = present.contains(tables.schemaHistory());
        int found = recorded ? recordedVersion(c) : inferred(present);
        List<String> pending = new ArrayList<>();
        for (int i = found; i < Schema.VERSIONS.size(); i++) {
            pending.add("db/postbox/" + dialect.schemaFolder() + "/" + Schema.VERSIONS.get(i));
        }
        return new SchemaState(describe(c), found, recorded, Schema.VERSIONS.size(), missing, pending);
    }

    /** The version of a schema whose version table is missing: what its tables tell (0 when it has none). */
    int inferredVersion(Connection c) throws SQLException {
        return inferred(tableNames(c));
    }

    private int inferred(Set<String> present) {
        int inferred = 0;
        for (Map.Entry<Integer, List<String>> version : tablesByVersion().entrySet()) {
            // from the version that created the version table on, versions are recorded, never inferred
            if (version.getValue().contains(tables.schemaHistory()) || !present.containsAll(version.getValue())) {
                break;
            }
            inferred = version.getKey();
        }
        return inferred;
    }

    private int recordedVersion(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT MAX(version) FROM " + tables.schemaHistory())) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    /**
     * The tables Postbox will use that the connection finds, each probed by the same unqualified name Postbox's SQL
     * uses, so it resolves as that SQL will (search path, case rules): a catalog listing could name a table Postbox
     * then cannot see, or miss one it can.
     */
    private Set<String> tableNames(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        for (List<String> created : tablesByVersion().values()) {
            for (String table : created) {
                if (exists(c, table)) {
                    names.add(table);
                }
            }
        }
        return names;
    }

    /** Undefined table: PostgreSQL 42P01; MySQL, MariaDB and H2 42S02; H2 on an empty database 42S04. */
    private static final Set<String> NO_SUCH_TABLE = Set.of("42P01", "42S02", "42S04");

    private static boolean exists(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            if (NO_SUCH_TABLE.contains(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /** e.g. {@code PostgreSQL 15.8, database test, schema public (jdbc:postgresql://db:5432/test)}. */
    static String describe(Connection c) throws SQLException {
        DatabaseMetaData meta = c.getMetaData();
        StringBuilder b = new StringBuilder(meta.getDatabaseProductName()).append(' ')
                .append(meta.getDatabaseProductVersion().split("[ (]")[0]);
        if (c.getCatalog() != null) {
            b.append(", database ").append(c.getCatalog());
        }
        if (c.getSchema() != null) {
            b.append(", schema ").append(c.getSchema());
        }
        return b.append(" (").append(withoutParameters(meta.getURL())).append(')').toString();
    }

    /** The URL up to its parameters, which may carry a password. */
    static String withoutParameters(String url) {
        if (url == null) {
            return "no URL";
        }
        int cut = url.length();
        for (char ch : new char[] {'?', ';', '&'}) {
            int i = url.indexOf(ch);
            if (i >= 0) {
                cut = Math.min(cut, i);
            }
        }
        return url.substring(0, cut);
    }
}
