package dev.postbox.test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * The data source a {@link RelayDriver} gives the relay it builds: the test's own, until {@link #cut()}. From then
 * on every connection the relay asks for is refused, as for a process that died: nothing it does afterwards
 * (recording outcomes, giving leases back, renewing them) reaches the database. Never joined again: the driver
 * replaces the relay with a new one, as a restarted process would be.
 */
final class CutOffDataSource implements DataSource {

    /** SQLState of the refusal: connection failure (class 08). */
    static final String SQL_STATE = "08006";

    private final DataSource target;
    private volatile boolean cut;

    CutOffDataSource(DataSource target) {
        this.target = target;
    }

    /** Refuses every later connection. */
    void cut() {
        cut = true;
    }

    boolean isCut() {
        return cut;
    }

    private void check() throws SQLException {
        if (cut) {
            throw new SQLException("relay cut off its database (RelayDriver: crash injected by the RecordingPublisher)",
                    SQL_STATE);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        check();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        check();
        return target.getConnection(username, password);
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
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }
}
