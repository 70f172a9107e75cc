package dev.postbox.relay;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * PostgreSQL LISTEN on the outbox's channel ({@link dev.postbox.internal.Settings#NOTIFY_CHANNEL_SQL}) over one
 * dedicated connection, waking the relay on every notification. Reconnects with a capped backoff when the connection drops; polling stays the safety
 * net meanwhile, so a lost notification only costs latency.
 */
final class PgNotifications implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final int WAIT_MS = 500;

    private final DataSource dataSource;
    private final String table;
    private volatile String channel;
    private final Runnable wakeUp;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Connection connection;

    PgNotifications(DataSource dataSource, String table, Runnable wakeUp, String name) {
        this.dataSource = dataSource;
        this.table = table;
        this.channel = table;
        this.wakeUp = wakeUp;
        this.thread = new Thread(this::listen, "postbox-listen-" + name);
        this.thread.setDaemon(true);
    }

    PgNotifications start() {
        thread.start();
        return this;
    }

    /** The channel the writers of {@code table} notify, as {@code c}'s session computes it. */
    static String channel(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + dev.postbox.internal.Settings.NOTIFY_CHANNEL_SQL)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private void listen() {
        long backoffMs = 100;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                connection = c;
                c.setAutoCommit(true);
                channel = channel(c, table);
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN " + channel);
                }
                log.debug("Listening on {}", channel);
                backoffMs = 100;
                wakeUp.run(); // anything committed while we were not listening
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MS);
                    if (notifications != null && notifications.length > 0) {
                        wakeUp.run();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn("LISTEN {} lost ({}); reconnecting in {} ms, polling meanwhile", channel, e.toString(), backoffMs);
                sleep(backoffMs);
                backoffMs = Math.min(backoffMs * 2, Duration.ofSeconds(10).toMillis());
            } finally {
                connection = null;
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(WAIT_MS * 2L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
