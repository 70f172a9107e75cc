package dev.postbox.nats;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs an owned connection's state changes once each, through SLF4J: the client reports every failed
 * reconnect attempt as another disconnect, which during an outage would be a line every reconnect wait.
 */
final class ConnectionLog implements ConnectionListener, ErrorListener {

    private static final Logger log = LoggerFactory.getLogger(NatsPublisher.class);

    private final String name;
    private volatile Events last;

    ConnectionLog(String name) {
        this.name = name;
    }

    /** Required by the interface, which the client no longer calls; the four-argument method does the work. */
    @Override
    @Deprecated
    public void connectionEvent(Connection connection, Events event) {
        connectionEvent(connection, event, null, null);
    }

    @Override
    public void connectionEvent(Connection connection, Events event, Long time, String uriDetails) {
        Events previous = last;
        last = event;
        if (event == previous) {
            return;
        }
        switch (event) {
            case DISCONNECTED -> log.warn("NATS connection '{}' lost; reconnecting (publishes fail as retryable meanwhile)", name);
            case RECONNECTED -> log.info("NATS connection '{}' reconnected to {}", name, connection.getConnectedUrl());
            case CONNECTED -> log.info("NATS connection '{}' open to {}", name, connection.getConnectedUrl());
            case CLOSED -> log.info("NATS connection '{}' closed", name);
            default -> log.debug("NATS connection '{}': {}", name, event);
        }
    }

    @Override
    public void errorOccurred(Connection connection, String error) {
        log.warn("NATS connection '{}': server error: {}", name, error);
    }

    @Override
    public void exceptionOccurred(Connection connection, Exception e) {
        log.debug("NATS connection '{}': {}", name, e.toString());
    }
}
