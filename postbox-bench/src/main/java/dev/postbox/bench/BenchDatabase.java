package dev.postbox.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A throw-away database for one run: a fresh PostgreSQL schema in database {@code test}, a fresh MariaDB
 * database, or an in-memory H2 database, all named {@code bench_<random>} and dropped by {@link #drop()}.
 * Server addresses can be changed with system properties {@code postbox.bench.pg.url},
 * {@code postbox.bench.pg.user}, {@code postbox.bench.mariadb.url} (ending in {@code /}) and
 * {@code postbox.bench.mariadb.user}.
 */
abstract class BenchDatabase {

    final String name = "bench_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
            .toLowerCase(Locale.ROOT);

    /** The canonical name of {@code kind} (postgres, mariadb or h2), or a usage error. */
    static String kind(String kind) {
        return switch (kind) {
            case "postgres", "postgresql", "pg" -> "postgres";
            case "mariadb", "mysql" -> "mariadb";
            case "h2" -> "h2";
            default -> throw new UsageException("--db must be postgres, mariadb or h2 (was '" + kind + "')");
        };
    }

    /** Creates the database for {@code kind}: postgres, mariadb or h2. */
    static BenchDatabase create(String kind) {
        BenchDatabase db = switch (kind(kind)) {
            case "postgres" -> new PostgresBenchDatabase();
            case "mariadb" -> new MariaDbBenchDatabase();
            default -> new H2BenchDatabase();
        };
        db.createDatabase();
        return db;
    }

    /** postgres, mariadb or h2. */
    abstract String kind();

    /** JDBC URL whose connections see only this database. */
    abstract String url();

    abstract String user();

    abstract void createDatabase();

    /** Drops the database; never throws (it runs in finally blocks). */
    abstract void drop();

    /** Server version and durability settings, for the record. */
    abstract String describe();

    /** The server's count of committed transactions, or empty where the database has none (H2). */
    abstract OptionalLong commits();

    /** Refreshes the planner statistics of {@code table} after a bulk load. */
    abstract void analyze(String table);

    /**
     * Who refreshed the statistics of {@code table} so far, for the record ({@code n/a} where the database
     * does not tell): a run meant to measure a never-analyzed table shows here if autovacuum analyzed it.
     */
    String analyzedSoFar(String table) {
        return "n/a";
    }

    /** How many other client sessions are connected to the server (they would skew timings and commits). */
    abstract long otherSessions();

    /** A new plain (unpooled) connection, auto-commit on. */
    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), "");
    }

    /** Runs {@code sql} statements on a new auto-commit connection. */
    void execute(String... sql) {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(kind() + ": " + String.join("; ", sql) + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row of {@code sql}, as a long. */
    long queryLong(String sql) {
        try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(kind() + ": " + sql + ": " + e.getMessage(), e);
        }
    }

    static String queryString(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(rs.getMetaData().getColumnCount()) : "?";
        }
    }

    static void executeOn(String url, String user, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(url + ": " + sql + ": " + e.getMessage(), e);
        }
    }
}
