package dev.postbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.OptionalLong;

/** A schema {@code bench_*} in PostgreSQL database {@code test}, reached with {@code currentSchema}. */
final class PostgresBenchDatabase extends BenchDatabase {

    private final String server;
    private final String user;

    /** On the shared server ({@code postbox.bench.pg.url}, {@code postbox.bench.pg.user}). */
    PostgresBenchDatabase() {
        this(System.getProperty("postbox.bench.pg.url", "jdbc:postgresql://127.0.0.1:5432/test"),
                System.getProperty("postbox.bench.pg.user", "postgres"));
    }

    /** On the server of {@code serverUrl}, e.g. a private one. */
    PostgresBenchDatabase(String serverUrl, String user) {
        this.server = serverUrl;
        this.user = user;
    }

    private static final String APPLICATION_NAME = "postbox-bench";

    @Override
    String kind() {
        return "postgres";
    }

    @Override
    String url() {
        return server + (server.contains("?") ? "&" : "?") + "currentSchema=" + name + "&ApplicationName=" + APPLICATION_NAME;
    }

    @Override
    String user() {
        return user;
    }

    @Override
    void createDatabase() {
        executeOn(url(), user, "CREATE SCHEMA " + name);
    }

    @Override
    void drop() {
        try {
            executeOn(url(), user, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } catch (RuntimeException e) {
            System.err.println("WARN could not drop schema " + name + ": " + e.getMessage());
        }
    }

    @Override
    String describe() {
        try (Connection c = connect()) {
            return "server=" + c.getMetaData().getDatabaseProductVersion()
                    + " synchronous_commit=" + queryString(c, "SHOW synchronous_commit")
                    + " fsync=" + queryString(c, "SHOW fsync")
                    + " shared_buffers=" + queryString(c, "SHOW shared_buffers")
                    + " max_wal_size=" + queryString(c, "SHOW max_wal_size");
        } catch (SQLException e) {
            return "server=? (" + e.getMessage() + ")";
        }
    }

    /**
     * {@code xact_commit} of this database. Backends report their counts when idle at most once a second
     * and at exit, so callers close the connections whose commits they count and wait for the value to
     * settle (see {@link CommitCounter}).
     */
    @Override
    OptionalLong commits() {
        return OptionalLong.of(queryLong("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"));
    }

    @Override
    void analyze(String table) {
        execute("VACUUM ANALYZE " + table);
    }

    @Override
    String analyzedSoFar(String table) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT analyze_count,"
                + " autoanalyze_count FROM pg_stat_user_tables WHERE schemaname = ? AND relname = ?")) {
            ps.setString(1, name);
            ps.setString(2, table.toLowerCase(Locale.ROOT));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) + "+" + rs.getLong(2) + "auto" : "0+0auto";
            }
        } catch (SQLException e) {
            return "? (" + e.getMessage() + ")";
        }
    }

    @Override
    long otherSessions() {
        return queryLong("SELECT COUNT(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                + " AND application_name <> '" + APPLICATION_NAME + "'");
    }
}
