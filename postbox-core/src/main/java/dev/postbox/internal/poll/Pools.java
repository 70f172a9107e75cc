package dev.postbox.internal.poll;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The small connection pool of a background job: the application's database and credentials but never
 * its connections, not auto-commit, READ COMMITTED, no MBeans. A job that is handed a data source uses
 * that one instead and owns no pool.
 *
 * <p>Over a HikariCP pool the job opens its own physical connections with the same settings. Over any other
 * data source (another pool, a tracing or routing wrapper) its connections are the application's: each one
 * goes back there when the job's pool retires it, so every session setting the job made is undone first
 * ({@code resetSql}); when a reset fails, the failure is logged and the connection still goes back.
 */
public final class Pools {

    private Pools() {
    }

    /**
     * A pool of {@code size} connections to the database of {@code app} (a Hikari pool's settings are
     * copied; any other data source is wrapped), named {@code name}.
     *
     * @param initSql SQL every connection runs once, committed by the pool (isolated); null for none
     * @param resetSql SQL that undoes {@code initSql} and any other session state the job may leave (run
     *                 before a connection of a wrapped data source goes back to it); null for none
     */
    public static HikariDataSource own(DataSource app, String name, int size, String initSql, String resetSql) {
        HikariConfig cfg = new HikariConfig();
        if (app instanceof HikariDataSource hikari) {
            hikari.copyStateTo(cfg); // same database and credentials, but never the same connections
        } else {
            cfg.setDataSource(resetSql == null ? app : new Resetting(app, resetSql));
        }
        cfg.setPoolName(name);
        cfg.setMaximumPoolSize(size);
        cfg.setMinimumIdle(1);
        cfg.setAutoCommit(false);
        cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        cfg.setRegisterMbeans(false);
        if (initSql != null) {
            cfg.setConnectionInitSql(initSql);
            // SET is transactional in PostgreSQL: Hikari must commit the init statements, or the first
            // rollback of the connection would undo them
            cfg.setIsolateInternalQueries(true);
        }
        return new HikariDataSource(cfg);
    }

    /** The same without session settings of its own. */
    public static HikariDataSource own(DataSource app, String name, int size) {
        return own(app, name, size, null, null);
    }

    /** Runs {@code resetSql} on {@code c}, committed unless it is in auto-commit (its open work rolled back first). */
    static void reset(Connection c, String resetSql) throws SQLException {
        if (c.isClosed()) {
            return;
        }
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
            c.rollback(); // nothing of the job's may be committed by the reset
        }
        try (Statement st = c.createStatement()) {
            st.execute(resetSql);
        }
        if (!autoCommit) {
            c.commit();
        }
    }

    /** A data source whose connections undo the job's session settings when closed. */
    private static final class Resetting extends WrappingDataSource {
        private final String resetSql;

        Resetting(DataSource app, String resetSql) {
            super(app);
            this.resetSql = resetSql;
        }

        @Override
        protected Connection prepare(Connection c) {
            return closingWith(c, connection -> reset(connection, resetSql),
                    "undo its session settings (" + resetSql + ")");
        }
    }
}
