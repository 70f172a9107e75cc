package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.kafka.KafkaPublisherBuilder;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code postbox.kafka.*} properties of the Kafka publisher the starter gives the relay. It is set up
 * only when {@code postbox.kafka.bootstrap-servers} or {@code spring.kafka.bootstrap-servers} is set. The
 * defaults are {@link KafkaPublisherBuilder}'s constants; acks, idempotence and the serializers are the
 * publisher's and cannot be changed.
 */
@ConfigurationProperties(prefix = "postbox.kafka")
public class KafkaTransportProperties {

    /** Default of {@link #getChannels()}. */
    public static final String DEFAULT_CHANNEL = "KAFKA";

    /** Whether to publish events to Kafka (when bootstrap servers are configured). */
    private boolean enabled = true;

    /** Event channels (OutboxEvent.channel) whose events the relay sends to Kafka; at least one. */
    private List<String> channels = new ArrayList<>(List.of(DEFAULT_CHANNEL));

    /**
     * Kafka cluster to publish to, host:port[,host:port...]; default spring.kafka.bootstrap-servers. Without
     * either, no Kafka publisher is set up.
     */
    private List<String> bootstrapServers;

    /** The producer's client.id. */
    private String clientId = KafkaPublisherBuilder.CLIENT_ID;

    /** Longest wait for a record's acknowledgement (delivery.timeout.ms); at least linger + request-timeout. */
    private Duration deliveryTimeout = KafkaPublisherBuilder.DELIVERY_TIMEOUT;

    /** Longest wait of one produce request (request.timeout.ms). */
    private Duration requestTimeout = KafkaPublisherBuilder.REQUEST_TIMEOUT;

    /** Longest wait of a send for the topic's metadata (max.block.ms); keep max-block + delivery-timeout below postbox.relay.send-timeout. */
    private Duration maxBlock = KafkaPublisherBuilder.MAX_BLOCK;

    /** How long the producer waits to fill a batch (linger.ms). */
    private Duration linger = KafkaPublisherBuilder.LINGER;

    /**
     * Further producer properties, e.g. security.protocol, sasl.jaas.config, compression.type (use the
     * bracket form for names with dots in YAML: "[compression.type]": lz4). Those of the admin client are
     * passed to the publisher's topic check too.
     */
    private Map<String, String> producer = new LinkedHashMap<>();

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

    public List<String> getBootstrapServers() {
        return bootstrapServers;
    }

    public void setBootstrapServers(List<String> bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public Duration getDeliveryTimeout() {
        return deliveryTimeout;
    }

    public void setDeliveryTimeout(Duration deliveryTimeout) {
        this.deliveryTimeout = deliveryTimeout;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Duration getMaxBlock() {
        return maxBlock;
    }

    public void setMaxBlock(Duration maxBlock) {
        this.maxBlock = maxBlock;
    }

    public Duration getLinger() {
        return linger;
    }

    public void setLinger(Duration linger) {
        this.linger = linger;
    }

    public Map<String, String> getProducer() {
        return producer;
    }

    public void setProducer(Map<String, String> producer) {
        this.producer = producer;
    }
}
