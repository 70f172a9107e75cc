package dev.postbox.relay;

import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.PollLoop;
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
 * PostgreSQL LISTEN on the outbox's channel ({@link Settings#NOTIFY_CHANNEL_SQL}) over one dedicated
 * connection, waking the relay on every notification. Runs on the polling engine: each turn waits up to
 * {@link #WAIT_MS} for notifications and the next turn starts at once, so a notification wakes the relay
 * as soon as it arrives. When the connection drops, the engine's idle back-off (100 ms doubling up to 10 s)
 * is the wait before reconnecting; polling stays the safety net meanwhile, so a lost notification only
 * costs latency.
 */
final class PgNotifications implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final int WAIT_MS = 500;
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    private final DataSource dataSource;
    private final String table;
    private volatile String channel;
    private final Runnable wakeUp;
    private final PollLoop loop;
    /** The listening connection and its driver view; touched by the loop's thread only. */
    private Connection connection;
    private PGConnection pg;
    /** The wait before the next reconnect, as the engine's back-off computes it (for the log line). */
    private long backoffMs = FIRST_BACKOFF.toMillis();

    PgNotifications(DataSource dataSource, String table, Runnable wakeUp, String name) {
        this.dataSource = dataSource;
        this.table = table;
        this.channel = table;
        this.wakeUp = wakeUp;
        this.loop = new PollLoop("LISTEN " + name, "postbox-listen-" + name, 1, FIRST_BACKOFF, MAX_BACKOFF, log);
    }

    PgNotifications start() {
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                return listen();
            }

            @Override
            public void exit(Throwable died) {
                disconnect();
            }
        });
        return this;
    }

    /** The channel the writers of {@code table} notify, as {@code c}'s session computes it. */
    static String channel(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + Settings.NOTIFY_CHANNEL_SQL)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** One turn: connect and LISTEN if not listening, else wait for notifications. */
    private PollLoop.Outcome listen() {
        try {
            if (pg == null) {
                connect();
                return PollLoop.Outcome.MORE;
            }
            PGNotification[] notifications = pg.getNotifications(WAIT_MS);
            if (notifications != null && notifications.length > 0) {
                wakeUp.run();
            }
            return PollLoop.Outcome.MORE;
        } catch (SQLException | RuntimeException e) {
            disconnect();
            if (!loop.closing()) {
                log.warn("LISTEN {} lost ({}); reconnecting in {} ms, polling meanwhile", channel, e.toString(), backoffMs);
                backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF.toMillis());
            }
            return PollLoop.Outcome.NONE; // the engine waits (backoffMs) before the next turn reconnects
        }
    }

    private void connect() throws SQLException {
        connection = dataSource.getConnection();
        connection.setAutoCommit(true);
        channel = channel(connection, table);
        try (Statement st = connection.createStatement()) {
            st.execute("LISTEN " + channel);
        }
        pg = connection.unwrap(PGConnection.class);
        log.debug("Listening on {}", channel);
        backoffMs = FIRST_BACKOFF.toMillis();
        wakeUp.run(); // anything committed while we were not listening
    }

    private void disconnect() {
        Connection c = connection;
        connection = null;
        pg = null;
        if (c != null) {
            try {
                // the connection may go back into the application's pool: a session still listening there would
                // buffer every later notification in the driver of whoever borrows it next
                if (!c.isClosed()) {
                    try (Statement st = c.createStatement()) {
                        st.execute("UNLISTEN *");
                    }
                    PGConnection driver = c.unwrap(PGConnection.class);
                    driver.getNotifications(); // and forget the ones the driver holds already
                }
            } catch (SQLException | RuntimeException e) {
                log.debug("UNLISTEN on the LISTEN connection failed: {}", e.toString());
            }
            try {
                c.close();
            } catch (SQLException | RuntimeException e) {
                log.debug("closing the LISTEN connection failed: {}", e.toString());
            }
        }
    }

    /** Stops listening: the current wait ends within {@link #WAIT_MS}, then the connection goes back. */
    @Override
    public void close() {
        loop.close(Duration.ofMillis(WAIT_MS * 2L), Duration.ofMillis(WAIT_MS));
    }
}
