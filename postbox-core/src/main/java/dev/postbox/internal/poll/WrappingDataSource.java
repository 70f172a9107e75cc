package dev.postbox.internal.poll;

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
 * A data source handing out another's connections, each as {@link #prepare} makes it: as it is, or with work of
 * Postbox's own done before it goes back ({@link #closingWith}), such as undoing a session setting Postbox made.
 * Everything else is the target's. Pools such as DBCP have no login timeout of their own (they throw): then there is
 * none.
 */
public abstract class WrappingDataSource implements DataSource {

    private static final Logger log = LoggerFactory.getLogger(WrappingDataSource.class);

    /** Work on a connection before it is closed. */
    @FunctionalInterface
    protected interface BeforeClose {
        void run(Connection c) throws SQLException;
    }

    protected final DataSource target;

    protected WrappingDataSource(DataSource target) {
        this.target = target;
    }

    /** The connection to hand out for {@code c}, which the caller closes; {@code c} is closed if this throws. */
    protected abstract Connection prepare(Connection c) throws SQLException;

    /**
     * {@code c}, running {@code beforeClose} when it is closed (a failure is logged as {@code what}, and the
     * connection still closed); equal only to itself, and unwrapping to itself where the driver's would not.
     */
    protected static Connection closingWith(Connection c, BeforeClose beforeClose, String what) {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getName().equals("close") && method.getParameterCount() == 0) {
                try {
                    if (!c.isClosed()) {
                        beforeClose.run(c);
                    }
                } catch (SQLException | RuntimeException e) {
                    log.warn("Postbox could not {} before giving a connection back: {}", what, e.toString());
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
            if (method.getName().equals("unwrap") && args != null && args[0] instanceof Class<?> k && k.isInstance(proxy)
                    && !k.isInstance(c)) {
                return proxy;
            }
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(WrappingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, h);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return prepared(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return prepared(target.getConnection(user, password));
    }

    private Connection prepared(Connection c) throws SQLException {
        try {
            return prepare(c);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
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
        try {
            target.setLoginTimeout(seconds);
        } catch (UnsupportedOperationException e) {
            // the target's pool keeps its own
        }
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        try {
            return target.getLoginTimeout();
        } catch (UnsupportedOperationException e) {
            return 0;
        }
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
