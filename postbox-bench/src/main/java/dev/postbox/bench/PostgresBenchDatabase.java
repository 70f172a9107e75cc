package dev.postbox.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/** A schema {@code bench_*} in PostgreSQL database {@code test}, reached with {@code currentSchema}. */
final class PostgresBenchDatabase extends BenchDatabase {

    private static final String SERVER = System.getProperty("postbox.bench.pg.url", "jdbc:postgresql://127.0.0.1:5432/test");
    private static final String USER = System.getProperty("postbox.bench.pg.user", "postgres");
    private static final String APPLICATION_NAME = "postbox-bench";

    @Override
    String kind() {
        return "postgres";
    }

    @Override
    String url() {
        return SERVER + (SERVER.contains("?") ? "&" : "?") + "currentSchema=" + name + "&ApplicationName=" + APPLICATION_NAME;
    }

    @Override
    String user() {
        return USER;
    }

    @Override
    void createDatabase() {
        executeOn(url(), USER, "CREATE SCHEMA " + name);
    }

    @Override
    void drop() {
        try {
            executeOn(url(), USER, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
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
                    + " shared_buffers=" + queryString(c, "SHOW shared_buffers");
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
    long otherSessions() {
        return queryLong("SELECT COUNT(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                + " AND application_name <> '" + APPLICATION_NAME + "'");
    }
}
