package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * A data source Postbox runs transactions of its own on without owning it (the application's, on which a person's
 * actions run; one handed to a relay or a worker), seen with connections at READ COMMITTED where the database locks
 * index gaps at the stricter levels ({@link Dialect#locksIndexGaps()}: InnoDB), as the pools Postbox opens itself
 * ({@link Pools}) are from the start. InnoDB then locks the rows a statement reads or changes and no gap, so that
 * nothing the application or a relay inserts or moves next to them waits for the transaction. At REPEATABLE READ,
 * MySQL's and MariaDB's default, a locking read by event_no locks the gap before it in the unique key, a locking
 * read of a status or an aggregate the gaps of its range, and a write by id on the partitioned outbox (primary key
 * {@code (id, partition_time)}) the gap after the row: for the newest row, where every new row of its partition goes.
 * <p>
 * A connection at a stricter level gets it back when it is closed (a failure to restore it is logged, the connection
 * still closed); one at READ COMMITTED or below is handed out as it is, and so is every connection of another
 * dialect. Thread-safe.
 */
public final class ReadCommitted implements DataSource {

    private static final Logger log = LoggerFactory.getLogger(ReadCommitted.class);

    private final DataSource target;

    private ReadCommitted(DataSource target) {
        this.target = target;
    }

    /** {@code target} seen so, or {@code target} itself where {@code dialect} locks no gaps. */
    public static DataSource of(Dialect dialect, DataSource target) {
        return dialect.locksIndexGaps() && !(target instanceof ReadCommitted) ? new ReadCommitted(target) : target;
    }

    private static Connection lowered(Connection c) throws SQLException {
        int level;
        try {
            level = c.getTransactionIsolation();
            if (level <= Connection.TRANSACTION_READ_COMMITTED) {
                return c;
            }
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getName().equals("close") && method.getParameterCount() == 0) {
                try {
                    if (!c.isClosed()) {
                        c.setTransactionIsolation(level);
                    }
                } catch (SQLException | RuntimeException e) {
                    log.warn("Postbox could not give a connection its isolation level back ({}) before returning it: {}",
                            level, e.toString());
                }
                c.close();
                return null;
            }
            if (method.getName().equals("equals") && method.getParameterCount() == 1) {
                return proxy == args[0];
            }
            if (method.getName().equals("hashCode") && method.getParameterCount() == 0) {
                return System.identityHashCode(proxy);
            }
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(ReadCommitted.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return lowered(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return lowered(target.getConnection(user, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }
}
