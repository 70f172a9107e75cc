package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.nats.NatsPublisher;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code postbox.nats.*} properties of the NATS JetStream publisher the starter gives the relay. It is
 * set up only when {@code postbox.nats.url} is set (there is no Spring Boot NATS property to fall back on
 * and no default server). The defaults are {@link NatsPublisher}'s constants. The subject of an event is
 * {@code subject-prefix + topic}; a JetStream stream must capture it.
 */
@ConfigurationProperties(prefix = "postbox.nats")
public class NatsTransportProperties {

    /** Default of {@link #getChannels()}. */
    public static final String DEFAULT_CHANNEL = "NATS";

    /** Whether to publish events to NATS JetStream (when a URL is configured). */
    private boolean enabled = true;

    /** Event channels (OutboxEvent.channel) whose events the relay sends to NATS; at least one. */
    private List<String> channels = new ArrayList<>(List.of(DEFAULT_CHANNEL));

    /**
     * Server URL(s), e.g. nats://127.0.0.1:4222, several comma-separated (credentials as nats://user:pass@host).
     * Required: without it no NATS publisher is set up. The connection reconnects without limit.
     */
    private List<String> url;

    /** Put before every topic to make the subject, e.g. "orders."; default none. */
    private String subjectPrefix = "";

    /** How long one event waits for its JetStream ack before it is retried; below postbox.relay.send-timeout. */
    private Duration ackTimeout = NatsPublisher.DEFAULT_ACK_TIMEOUT;

    /** Pause between reconnect attempts. */
    private Duration reconnectWait = NatsPublisher.DEFAULT_RECONNECT_WAIT;

    /** Connection name shown by the server's monitoring. */
    private String connectionName = NatsPublisher.DEFAULT_CONNECTION_NAME;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getChannels() {
        return channels;
    }

    public void setChannels(List<String> channels) {
        this.channels = channels;
    }

    public List<String> getUrl() {
        return url;
    }

    public void setUrl(List<String> url) {
        this.url = url;
    }

    public String getSubjectPrefix() {
        return subjectPrefix;
    }

    public void setSubjectPrefix(String subjectPrefix) {
        this.subjectPrefix = subjectPrefix;
    }

    public Duration getAckTimeout() {
        return ackTimeout;
    }

    public void setAckTimeout(Duration ackTimeout) {
        this.ackTimeout = ackTimeout;
    }

    public Duration getReconnectWait() {
        return reconnectWait;
    }

    public void setReconnectWait(Duration reconnectWait) {
        this.reconnectWait = reconnectWait;
    }

    public String getConnectionName() {
        return connectionName;
    }

    public void setConnectionName(String connectionName) {
        this.connectionName = connectionName;
    }
}
