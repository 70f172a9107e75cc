package dev.postbox.internal.poll;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;

/**
 * The small connection pool of a background job: the application's database and credentials but never
 * its connections, not auto-commit, READ COMMITTED, no MBeans. A job that is handed a data source uses
 * that one instead and owns no pool.
 */
public final class Pools {

    private Pools() {
    }

    /**
     * A pool of {@code size} connections to the database of {@code app} (a Hikari pool's settings are
     * copied; any other data source is wrapped), named {@code name}.
     *
     * @param initSql SQL every connection runs once, committed by the pool (isolated); null for none
     */
    public static HikariDataSource own(DataSource app, String name, int size, String initSql) {
        HikariConfig cfg = new HikariConfig();
        if (app instanceof HikariDataSource hikari) {
            hikari.copyStateTo(cfg); // same database and credentials, but never the same connections
        } else {
            cfg.setDataSource(app);
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
}
