package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.rabbitmq.RabbitDefaults;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code postbox.rabbitmq.*} properties of the RabbitMQ publisher the starter gives the relay. It is
 * set up only when {@code postbox.rabbitmq.host} or {@code spring.rabbitmq.host} is set. The connection
 * settings are taken as a group: with {@code postbox.rabbitmq.host} set, host, port, username, password and
 * virtual host all come from {@code postbox.rabbitmq.*} (unset ones: the AMQP client's defaults); without
 * it, all from {@code spring.rabbitmq.*}, so the relay may use a broker of its own or the application's.
 * An event's topic is the exchange and its routing key the routing key.
 */
@ConfigurationProperties(prefix = "postbox.rabbitmq")
public class RabbitTransportProperties {

    /** Default of {@link #getChannels()}. */
    public static final String DEFAULT_CHANNEL = "RABBITMQ";
    /** Default of {@link #getConnectionTimeout()}: a connection attempt runs on the relay's thread. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** Default of {@link #getConnectionName()}. */
    public static final String DEFAULT_CONNECTION_NAME = "postbox-relay";

    /** Whether to publish events to RabbitMQ (when a host is configured). */
    private boolean enabled = true;

    /** Event channels (OutboxEvent.channel) whose events the relay sends to RabbitMQ; at least one. */
    private List<String> channels = new ArrayList<>(List.of(DEFAULT_CHANNEL));

    /** Broker host; default spring.rabbitmq.host (and then spring.rabbitmq.* for the other connection settings). Without either, no RabbitMQ publisher is set up. */
    private String host;

    /** Broker port (default 5672 with postbox.rabbitmq.host, else spring.rabbitmq.port). */
    private Integer port;

    /** User name (default guest with postbox.rabbitmq.host, else spring.rabbitmq.username). */
    private String username;

    /** Password (default guest with postbox.rabbitmq.host, else spring.rabbitmq.password). */
    private String password;

    /** Virtual host (default / with postbox.rabbitmq.host, else spring.rabbitmq.virtual-host). */
    private String virtualHost;

    /** Longest wait for a TCP connection and the AMQP handshake; the attempt runs on the relay's thread. */
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;

    /**
     * Exchange for events without a topic; default none (such events go DEAD). An empty value is the AMQP
     * default exchange, which routes by queue name: the routing key must then be the queue.
     */
    private String defaultExchange;

    /** How long an event waits for its publisher confirm before it is retried. */
    private Duration confirmTimeout = RabbitDefaults.CONFIRM_TIMEOUT;

    /** Least pause between connection attempts while the broker is unreachable; zero allowed. */
    private Duration reconnectInterval = RabbitDefaults.RECONNECT_INTERVAL;

    /** Client-provided connection name, shown in the management UI. */
    private String connectionName = DEFAULT_CONNECTION_NAME;

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

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getVirtualHost() {
        return virtualHost;
    }

    public void setVirtualHost(String virtualHost) {
        this.virtualHost = virtualHost;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public String getDefaultExchange() {
        return defaultExchange;
    }

    public void setDefaultExchange(String defaultExchange) {
        this.defaultExchange = defaultExchange;
    }

    public Duration getConfirmTimeout() {
        return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
        this.confirmTimeout = confirmTimeout;
    }

    public Duration getReconnectInterval() {
        return reconnectInterval;
    }

    public void setReconnectInterval(Duration reconnectInterval) {
        this.reconnectInterval = reconnectInterval;
    }

    public String getConnectionName() {
        return connectionName;
    }

    public void setConnectionName(String connectionName) {
        this.connectionName = connectionName;
    }
}
