package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.http.HttpPublisher;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code postbox.http.*} properties of the webhook publisher the starter gives the relay: each event
 * becomes one signed {@code POST} of its payload. It is set up only when at least one
 * {@code postbox.http.endpoints.<name>} is set. The defaults are {@link HttpPublisher}'s constants.
 * <p>
 * An event goes to the endpoint that {@code routes} maps its topic to; without a mapping, to the endpoint
 * named like its topic; without one, to the endpoint named like its channel, so
 * {@code postbox.http.endpoints.HTTP=https://...} takes every event of channel {@code HTTP}.
 */
@ConfigurationProperties(prefix = "postbox.http")
public class HttpTransportProperties {

    /** Default of {@link #getChannels()}. */
    public static final String DEFAULT_CHANNEL = "HTTP";

    /** Whether to post events to HTTP endpoints (when at least one endpoint is configured). */
    private boolean enabled = true;

    /** Event channels (OutboxEvent.channel) whose events the relay posts; at least one. */
    private List<String> channels = new ArrayList<>(List.of(DEFAULT_CHANNEL));

    /**
     * Endpoints by name: absolute http or https URLs events are posted to. Without any, no HTTP publisher is
     * set up. An endpoint named like a channel takes that channel's events that no route or topic names.
     */
    private Map<String, String> endpoints = new LinkedHashMap<>();

    /**
     * Topic to endpoint name, e.g. postbox.http.routes[order.event]=billing (brackets keep the dots of a
     * topic); every endpoint named must be configured.
     */
    private Map<String, String> routes = new LinkedHashMap<>();

    /**
     * Shared secret that signs every request (Postbox-Signature, HMAC-SHA256); the receiver verifies it
     * with WebhookVerifier. Default none: requests go unsigned, with a warning at start-up.
     */
    private String secret;

    /** Requests in flight at once, 1..10000; more wait for a free slot. */
    private int maxInFlight = HttpPublisher.DEFAULT_MAX_IN_FLIGHT;

    /** Longest wait for the answer to one request, then it is retried. */
    private Duration requestTimeout = HttpPublisher.DEFAULT_REQUEST_TIMEOUT;

    /** Longest wait for a connection. */
    private Duration connectTimeout = HttpPublisher.DEFAULT_CONNECT_TIMEOUT;

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

    public Map<String, String> getEndpoints() {
        return endpoints;
    }

    public void setEndpoints(Map<String, String> endpoints) {
        this.endpoints = endpoints;
    }

    public Map<String, String> getRoutes() {
        return routes;
    }

    public void setRoutes(Map<String, String> routes) {
        this.routes = routes;
    }

    public String getSecret() {
        return secret;
    }

    public void setSecret(String secret) {
        this.secret = secret;
    }

    public int getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }
}
