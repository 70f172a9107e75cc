package dev.postbox.server;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A source's database as a data source that opens one connection per call through the URL's driver. The relay pools
 * its own connections on top of it (its own small pool, seed 001); the server's other uses (the schema check) are few.
 */
record UrlDataSource(String url, String user, String password) implements DataSource {

    @Override
    public Connection getConnection() throws SQLException {
        Properties p = new Properties();
        if (user != null) {
            p.put("user", user);
        }
        if (password != null) {
            p.put("password", password);
        }
        return DriverManager.getConnection(url, p);
    }

    @Override
    public Connection getConnection(String u, String pw) throws SQLException {
        return DriverManager.getConnection(url, u, pw);
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }

    /** The URL without its password, for logs. */
    @Override
    public String toString() {
        return url + (user == null ? "" : " as " + user);
    }
}
