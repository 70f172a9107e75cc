package dev.postbox.internal.poll;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.jdbc.Dialect;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The short transactions background jobs run on their own pool: one connection, commit on success,
 * rollback on any failure (a failing rollback is added to the first cause, never hides it), SQL failures
 * wrapped in a {@link PostboxSqlException} that names what was being done. The pool's connections are
 * not auto-commit ({@link Pools}).
 */
public final class Transactions {

    /** Work inside one transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private static final Map<String, ReentrantLock> SERIAL = new ConcurrentHashMap<>();

    private Transactions() {
    }

    /**
     * Runs {@code work} in one transaction on a connection of {@code pool}; {@code what} names it in errors.
     * A pool that hands out auto-commit connections (one a user gave a job) gets them back in auto-commit.
     */
    public static <T> T inTransaction(DataSource pool, String what, Work<T> work) {
        try (Connection c = pool.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(c, e);
                throw e;
            } finally {
                if (autoCommit) {
                    c.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    /**
     * Like {@link #inTransaction}, for a claim: the transaction first runs the dialect's
     * {@link Dialect#claimPlanSql()} (plans that do not depend on fresh statistics), and when
     * {@code serialized} only one such transaction of {@code kind} runs at a time in this JVM: for claims on
     * a database without {@code SKIP LOCKED}, where concurrent claimers would collide on the same rows.
     */
    public static <T> T claim(String kind, boolean serialized, Dialect dialect, DataSource pool, String what,
                              Work<T> work) {
        String planSql = dialect.claimPlanSql();
        Work<T> planned = planSql == null ? work : c -> {
            try (Statement st = c.createStatement()) {
                st.execute(planSql);
            }
            return work.run(c);
        };
        if (!serialized) {
            return inTransaction(pool, what, planned);
        }
        ReentrantLock lock = SERIAL.computeIfAbsent(kind, k -> new ReentrantLock());
        lock.lock();
        try {
            return inTransaction(pool, what, planned);
        } finally {
            lock.unlock();
        }
    }

    /** Rolls back after {@code failure}; a failing rollback (the connection is gone) must not hide the first cause. */
    private static void rollback(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
