package dev.postbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One run's throw-away database, the application's connection pool (HikariCP, auto-commit off, used by
 * producers; relays open their own pools from its settings) and a Postbox with its schema installed.
 * {@link #close()} closes the pool and drops the database, also after a failure or when the JVM is stopped.
 */
final class BenchContext implements AutoCloseable {

    /** The business table producers insert into, in the same transaction as the event. */
    static final String ORDERS = "bench_order";

    final BenchDatabase db;
    final HikariDataSource pool;
    final Postbox postbox;
    /** Whether writers NOTIFY and relays LISTEN (PostgreSQL). */
    final boolean notifications;
    /** Drops the database when the JVM is stopped (Ctrl-C, kill) before {@link #close()} ran. */
    private final Thread dropOnExit;

    private BenchContext(BenchDatabase db, HikariDataSource pool, Postbox postbox, boolean notifications) {
        this.db = db;
        this.pool = pool;
        this.postbox = postbox;
        this.notifications = notifications;
        this.dropOnExit = new Thread(() -> {
            System.err.println("WARN stopped before the end; dropping " + db.name);
            pool.close();
            db.drop();
        }, "bench-drop-on-exit");
        Runtime.getRuntime().addShutdownHook(dropOnExit);
    }

    /** {@code notifications}: whether writers NOTIFY and relays LISTEN on PostgreSQL. */
    static BenchContext open(String kind, int poolSize, boolean notifications) {
        BenchDatabase db = BenchDatabase.create(kind);
        HikariDataSource pool = null;
        try {
            HikariConfig cfg = new HikariConfig();
            cfg.setJdbcUrl(db.url());
            cfg.setUsername(db.user());
            cfg.setPoolName("bench-app");
            cfg.setMaximumPoolSize(poolSize);
            cfg.setMinimumIdle(poolSize);
            cfg.setAutoCommit(false);
            cfg.setRegisterMbeans(false);
            pool = new HikariDataSource(cfg);
            warmUp(pool, poolSize);
            Postbox postbox = Postbox.builder(pool).source("bench").notifyOnWrite(notifications).build();
            postbox.schema().install();
            db.execute("CREATE TABLE " + ORDERS + " (id BIGINT PRIMARY KEY, aggregate_id VARCHAR(64) NOT NULL,"
                    + " amount INT NOT NULL)");
            return new BenchContext(db, pool, postbox, notifications);
        } catch (RuntimeException e) {
            if (pool != null) {
                pool.close();
            }
            db.drop();
            throw e;
        }
    }

    /** Opens every connection of the pool now, so that the first events do not pay for connecting. */
    private static void warmUp(HikariDataSource pool, int size) {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                held.add(pool.getConnection());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open " + size + " connections to " + pool.getJdbcUrl() + ": " + e.getMessage(), e);
        } finally {
            for (Connection c : held) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // returned to the pool or discarded: either is fine for a warm-up
                }
            }
        }
    }

    String outbox() {
        return postbox.tables().outbox();
    }

    /** Rows of the outbox table matching {@code where}. */
    long countOutbox(String where) {
        return db.queryLong("SELECT COUNT(*) FROM " + outbox() + " WHERE " + where);
    }

    /** Closes the application's idle connections, so that their backends report what they committed. */
    void evictIdleConnections() {
        pool.getHikariPoolMXBean().softEvictConnections();
    }

    @Override
    public void close() {
        Runtime.getRuntime().removeShutdownHook(dropOnExit);
        try {
            pool.close();
        } finally {
            db.drop();
        }
    }
}
