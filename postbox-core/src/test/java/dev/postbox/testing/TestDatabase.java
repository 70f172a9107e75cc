package dev.postbox.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A throw-away database on one of the real services: a fresh PostgreSQL schema, a fresh MariaDB
 * database or a fresh in-memory H2 database, dropped by {@link #close()}. Connecting fails loudly when
 * the service is down; nothing here skips.
 */
public abstract class TestDatabase implements AutoCloseable {

    public static final String PG_URL = System.getProperty("postbox.test.pg.url", "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String PG_USER = System.getProperty("postbox.test.pg.user", "postgres");
    public static final String MARIADB_URL = System.getProperty("postbox.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/");
    public static final String MARIADB_USER = System.getProperty("postbox.test.mariadb.user", "root");

    protected final String name = "pbt_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
            .toLowerCase(Locale.ROOT);

    /** The schema (PostgreSQL), database (MariaDB) or in-memory database (H2) name, e.g. for a JDBC URL. */
    public String name() {
        return name;
    }

    /** A JDBC URL (user and password below) that sees only this database or schema, for frameworks that want one. */
    public String jdbcUrl() {
        switch (kind()) {
            case "postgresql":
                return PG_URL + (PG_URL.contains("?") ? "&" : "?") + "currentSchema=" + name;
            case "mariadb":
                return MARIADB_URL + name;
            default:
                return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
        }
    }

    /** The user for {@link #jdbcUrl()}; the services use trust or an empty password. */
    public String user() {
        switch (kind()) {
            case "postgresql":
                return PG_USER;
            case "mariadb":
                return MARIADB_USER;
            default:
                return "sa";
        }
    }

    /**
     * A data source whose connections see only this database (or schema). On PostgreSQL it is a small
     * HikariCP pool, as a service has (a PostgreSQL session is a process: opening one costs about 20 ms on
     * these machines, and a suite that opens one per statement spends its time there); elsewhere it opens a
     * connection per call. {@link #unpooledDataSource()} always opens a new session.
     */
    public abstract DataSource dataSource();

    /** A data source that opens a new session on every call, for a test that needs one of its own. */
    public abstract DataSource unpooledDataSource();

    /** {@code postgresql}, {@code mariadb} or {@code h2}. */
    public abstract String kind();

    /** SQL that formats {@code column} of {@code table} as UTC text {@code yyyy-MM-dd HH:mm:ss.SSS}. */
    public abstract String utcText(String column);

    @Override
    public abstract void close();

    /** PostgreSQL: a new schema in database {@code test}; {@code sessionTimeZone} null keeps the server's. */
    public static TestDatabase postgres(String sessionTimeZone) {
        return new Postgres(sessionTimeZone);
    }

    /** MariaDB: a new database; {@code sessionTimeZone} like {@code +05:30}, or null. */
    public static TestDatabase mariadb(String sessionTimeZone) {
        return new MariaDb(sessionTimeZone);
    }

    /** H2 in memory, kept until closed. */
    public static TestDatabase h2() {
        return new H2();
    }

    static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test database setup failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    private static final class Postgres extends TestDatabase {
        private final org.postgresql.ds.PGSimpleDataSource admin = new org.postgresql.ds.PGSimpleDataSource();
        private final org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        private volatile com.zaxxer.hikari.HikariDataSource pool;

        Postgres(String tz) {
            admin.setUrl(PG_URL);
            admin.setUser(PG_USER);
            exec(admin, "CREATE SCHEMA " + name);
            ds.setUrl(PG_URL);
            ds.setUser(PG_USER);
            ds.setCurrentSchema(name);
            if (tz != null) {
                ds.setOptions("-c TimeZone=" + tz);
            }
        }

        @Override
        public DataSource dataSource() {
            com.zaxxer.hikari.HikariDataSource p = pool;
            // a Spring context closes the DataSource bean it was given when it closes: then a new pool
            if (p == null || p.isClosed()) {
                synchronized (this) {
                    p = pool;
                    if (p == null || p.isClosed()) {
                        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
                        cfg.setDataSource(ds);
                        cfg.setPoolName("test-" + name);
                        // roomy: a contract runs several relays, writers and lock holders at once
                        cfg.setMaximumPoolSize(32);
                        cfg.setMinimumIdle(0);
                        cfg.setIdleTimeout(10_000);
                        cfg.setConnectionTimeout(10_000);
                        pool = p = new com.zaxxer.hikari.HikariDataSource(cfg);
                    }
                }
            }
            return p;
        }

        @Override
        public DataSource unpooledDataSource() {
            return ds;
        }

        @Override
        public String kind() {
            return "postgresql";
        }

        @Override
        public String utcText(String column) {
            return "to_char(" + column + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')";
        }

        @Override
        public void close() {
            com.zaxxer.hikari.HikariDataSource p = pool;
            if (p != null) {
                p.close();
            }
            exec(admin, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
    }

    private static final class MariaDb extends TestDatabase {
        private final org.mariadb.jdbc.MariaDbDataSource admin;
        private final org.mariadb.jdbc.MariaDbDataSource ds;

        MariaDb(String tz) {
            try {
                admin = new org.mariadb.jdbc.MariaDbDataSource(MARIADB_URL + "?user=" + MARIADB_USER);
                exec(admin, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
                String url = MARIADB_URL + name + "?user=" + MARIADB_USER;
                if (tz != null) {
                    url += "&sessionVariables=time_zone='" + tz + "'";
                }
                ds = new org.mariadb.jdbc.MariaDbDataSource(url);
            } catch (SQLException e) {
                throw new IllegalStateException("MariaDB at " + MARIADB_URL + " is not usable: " + e.getMessage(), e);
            }
        }

        @Override
        public DataSource dataSource() {
            return ds;
        }

        @Override
        public DataSource unpooledDataSource() {
            return ds;
        }

        @Override
        public String kind() {
            return "mariadb";
        }

        @Override
        public String utcText(String column) {
            return "DATE_FORMAT(" + column + ", '%Y-%m-%d %H:%i:%s.%f')";
        }

        @Override
        public void close() {
            exec(admin, "DROP DATABASE IF EXISTS " + name);
        }
    }

    private static final class H2 extends TestDatabase {
        private final org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();

        H2() {
            ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
            ds.setUser("sa");
        }

        @Override
        public DataSource dataSource() {
            return ds;
        }

        @Override
        public DataSource unpooledDataSource() {
            return ds;
        }

        @Override
        public String kind() {
            return "h2";
        }

        @Override
        public String utcText(String column) {
            return "FORMATDATETIME(" + column + ", 'yyyy-MM-dd HH:mm:ss.SSS', 'en', 'UTC')";
        }

        @Override
        public void close() {
            exec(ds, "SHUTDOWN");
        }
    }
}
