package dev.postbox.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/** A database {@code bench_*} on the MariaDB server (utf8mb4, binary collation, like the tests). */
final class MariaDbBenchDatabase extends BenchDatabase {

    private final String server;
    private final String user;

    /** On the shared server ({@code postbox.bench.mariadb.url}, {@code postbox.bench.mariadb.user}). */
    MariaDbBenchDatabase() {
        this(System.getProperty("postbox.bench.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/"),
                System.getProperty("postbox.bench.mariadb.user", "root"));
    }

    /** On the server of {@code serverUrl}, e.g. a private one. */
    MariaDbBenchDatabase(String serverUrl, String user) {
        this.server = serverUrl;
        this.user = user;
    }


    @Override
    String kind() {
        return "mariadb";
    }

    @Override
    String url() {
        return server + name;
    }

    @Override
    String user() {
        return user;
    }

    @Override
    void createDatabase() {
        executeOn(server, user, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    }

    @Override
    void drop() {
        try {
            executeOn(server, user, "DROP DATABASE IF EXISTS " + name);
        } catch (RuntimeException e) {
            System.err.println("WARN could not drop database " + name + ": " + e.getMessage());
        }
    }

    @Override
    String describe() {
        try (Connection c = connect()) {
            return "server=" + c.getMetaData().getDatabaseProductVersion()
                    + " innodb_flush_log_at_trx_commit=" + queryString(c, "SELECT @@innodb_flush_log_at_trx_commit")
                    + " innodb_buffer_pool_size=" + queryString(c, "SELECT @@innodb_buffer_pool_size")
                    + " innodb_log_file_size=" + queryString(c, "SELECT @@innodb_log_file_size");
        } catch (SQLException e) {
            return "server=? (" + e.getMessage() + ")";
        }
    }

    /** {@code Com_commit}: COMMIT statements of every session on the server, counted at once. */
    @Override
    OptionalLong commits() {
        try (Connection c = connect()) {
            return OptionalLong.of(Long.parseLong(queryString(c, "SHOW GLOBAL STATUS LIKE 'Com_commit'")));
        } catch (SQLException e) {
            throw new IllegalStateException("reading Com_commit: " + e.getMessage(), e);
        }
    }

    @Override
    void analyze(String table) {
        execute("ANALYZE TABLE " + table);
    }

    @Override
    long otherSessions() {
        return queryLong("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()"
                + " AND COMMAND <> 'Daemon' AND (DB IS NULL OR DB <> '" + name + "')");
    }
}
