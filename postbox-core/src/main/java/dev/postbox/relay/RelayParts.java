package dev.postbox.relay;

import dev.postbox.internal.Settings;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Heartbeat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;

/**
 * The parts of a {@link Relay} that take more than a line to make: whether it listens for PostgreSQL's
 * notifications, and its heartbeat (instance and stats rows) with the description the console shows.
 */
final class RelayParts {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private RelayParts() {
    }

    /** Whether the relay LISTENs: asked to, on a database that notifies at commit, with PostgreSQL's driver present. */
    static boolean listens(RelayConfig config, Settings settings) {
        return config.listen() && settings.dialect().notifiesAtCommit() && pgDriverPresent();
    }

    private static boolean pgDriverPresent() {
        try {
            Class.forName("org.postgresql.PGConnection", false, Relay.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The relay's heartbeat on {@code pool}, writing the window of {@code stats}; not started. */
    static Heartbeat heartbeat(Settings settings, RelayConfig config, DataSource pool, WindowStats stats) {
        return new Heartbeat(settings.dialect(), settings.tables(), pool, config.instanceId(), "relay", detail(config),
                config.heartbeatInterval(), stats, log, config.owner());
    }

    /** What the relay serves, for the console: its publisher (routes by channel), batch, order. */
    static String detail(RelayConfig config) {
        String publisher = config.publisher() instanceof Routes routes ? routes.describe()
                : config.publisher().getClass().getName();
        return "publisher " + publisher + "; batch " + config.batchSize() + ", " + config.inFlightBatches()
                + " in flight, " + (config.ordered() ? "ordered" : "unordered") + ", lease " + config.lease();
    }
}
