package dev.postbox.kafka;

import dev.postbox.common.ValidationException;
import dev.postbox.relay.RelayDefaults;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * Settings of a {@link KafkaPublisher}, validated by {@link #build()}. Only {@link #bootstrapServers} is
 * required. The producer always runs with {@code acks=all}, {@code enable.idempotence=true} and at most
 * {@value #MAX_IN_FLIGHT} requests in flight per connection (no loss, no reordering or duplicates on the
 * producer's own retries); {@link #property} passes anything else (security, compression, batching).
 * <p>
 * Timeouts: a send waits up to {@link #maxBlock} for the topic's metadata, then up to
 * {@link #deliveryTimeout} for the broker's acknowledgement (each request within {@link #requestTimeout}).
 * Keep {@code maxBlock + deliveryTimeout} below the relay's send timeout (default
 * {@link RelayDefaults#SEND_TIMEOUT}, 10 s) so the producer gives a record up before the relay does;
 * otherwise a record the relay already counted as timed out may still arrive, followed by its retry (the
 * inbox absorbs the duplicate). The defaults, 1 s + 8 s, fit. Not thread-safe.
 */
public final class KafkaPublisherBuilder {

    private static final Logger log = LoggerFactory.getLogger(KafkaPublisherBuilder.class);

    /** Default {@code client.id} of the producer. */
    public static final String CLIENT_ID = "postbox-relay";
    /** Default {@code delivery.timeout.ms}: the longest a record waits for its acknowledgement. */
    public static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(8);
    /** Default {@code request.timeout.ms}: the longest one produce request waits. */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(4);
    /** Default {@code max.block.ms}: the longest a send waits for metadata (or buffer space) before failing. */
    public static final Duration MAX_BLOCK = Duration.ofSeconds(1);
    /**
     * Default {@code linger.ms}: how long the producer waits to fill a batch. Zero: the relay hands over a
     * whole batch (or wave) in one call, so its records fill the producer's batches while the first request
     * is in flight; waiting longer only adds that wait to every wave of an ordered batch.
     */
    public static final Duration LINGER = Duration.ZERO;
    /** Largest {@code max.in.flight.requests.per.connection} that keeps idempotent order. */
    public static final int MAX_IN_FLIGHT = 5;

    private static final Set<String> FORCED = Set.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ProducerConfig.MAX_BLOCK_MS_CONFIG, ProducerConfig.LINGER_MS_CONFIG,
            ProducerConfig.CLIENT_ID_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG);

    private String bootstrapServers;
    private String clientId = CLIENT_ID;
    private Duration deliveryTimeout = DELIVERY_TIMEOUT;
    private Duration requestTimeout = REQUEST_TIMEOUT;
    private Duration maxBlock = MAX_BLOCK;
    private Duration linger = LINGER;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    KafkaPublisherBuilder() {
    }

    /** Required: {@code host:port[,host:port...]} of the cluster. */
    public KafkaPublisherBuilder bootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        return this;
    }

    /** The producer's {@code client.id}; default {@value #CLIENT_ID}. */
    public KafkaPublisherBuilder clientId(String clientId) {
        this.clientId = clientId;
        return this;
    }

    /** {@code delivery.timeout.ms}; default 8 s; at least {@code linger + requestTimeout}. */
    public KafkaPublisherBuilder deliveryTimeout(Duration deliveryTimeout) {
        this.deliveryTimeout = deliveryTimeout;
        return this;
    }

    /** {@code request.timeout.ms}; default 4 s. */
    public KafkaPublisherBuilder requestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
        return this;
    }

    /** {@code max.block.ms}, also the admin's look-up timeout for a topic that may be missing; default 1 s. */
    public KafkaPublisherBuilder maxBlock(Duration maxBlock) {
        this.maxBlock = maxBlock;
        return this;
    }

    /** {@code linger.ms}; default 0 (see {@link #LINGER}). */
    public KafkaPublisherBuilder linger(Duration linger) {
        this.linger = linger;
        return this;
    }

    /**
     * Any other producer property (e.g. {@code security.protocol}, {@code compression.type}); the ones this
     * builder owns have their own methods, and {@code acks}, {@code enable.idempotence} and the serializers
     * cannot be changed. Properties the admin client knows (security, client DNS) are passed to it too.
     */
    public KafkaPublisherBuilder property(String name, Object value) {
        if (name == null || name.isBlank()) {
            throw new ValidationException("kafka.property", "name must not be blank");
        }
        properties.put(name, Objects.requireNonNull(value, "value of " + name));
        return this;
    }

    /**
     * Validates the settings and creates the producer (it connects lazily, so a broker that is down now is
     * not an error).
     *
     * @throws ValidationException a setting is missing or contradicts another, naming it
     */
    public KafkaPublisher build() {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new ValidationException("kafka.bootstrapServers", "is required (host:port[,host:port...])");
        }
        if (clientId == null || clientId.isBlank()) {
            throw new ValidationException("kafka.clientId", "must not be blank");
        }
        positive("kafka.deliveryTimeout", deliveryTimeout);
        positive("kafka.requestTimeout", requestTimeout);
        positive("kafka.maxBlock", maxBlock);
        if (linger == null || linger.isNegative()) {
            throw new ValidationException("kafka.linger", "must be zero or positive, was " + linger);
        }
        if (deliveryTimeout.compareTo(linger.plus(requestTimeout)) < 0) {
            throw new ValidationException("kafka.deliveryTimeout", "must be at least linger + requestTimeout ("
                    + linger.plus(requestTimeout) + "), was " + deliveryTimeout);
        }
        for (String name : properties.keySet()) {
            if (FORCED.contains(name)) {
                throw new ValidationException("kafka.property." + name, "is set by the publisher"
                        + " (acks=all, idempotence on, its own serializers and timeouts; no transactions)");
            }
        }
        Object inFlight = properties.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        if (inFlight != null && parseInt(inFlight) > MAX_IN_FLIGHT) {
            throw new ValidationException("kafka.property." + ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                    "must be at most " + MAX_IN_FLIGHT + " to keep the idempotent producer's order, was " + inFlight);
        }
        if (maxBlock.plus(deliveryTimeout).compareTo(RelayDefaults.SEND_TIMEOUT) >= 0) {
            log.warn("kafka maxBlock + deliveryTimeout = {} is not below the relay's default send timeout {}:"
                    + " raise the relay's sendTimeout above it", maxBlock.plus(deliveryTimeout), RelayDefaults.SEND_TIMEOUT);
        }
        Map<String, Object> config = new HashMap<>(properties);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, MAX_IN_FLIGHT);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) deliveryTimeout.toMillis());
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) requestTimeout.toMillis());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlock.toMillis());
        config.put(ProducerConfig.LINGER_MS_CONFIG, (int) linger.toMillis());

        Properties adminConfig = new Properties();
        properties.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                adminConfig.put(k, v);
            }
        });
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        adminConfig.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(maxBlock.toMillis(), 1));
        adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.max(maxBlock.toMillis(), 1));
        Admin admin = Admin.create(adminConfig);
        try {
            return new KafkaPublisher(config, admin, maxBlock);
        } catch (KafkaException e) {
            admin.close(Duration.ZERO);
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ValidationException("kafka.property", "the producer rejected its configuration: " + cause.getMessage());
        } catch (RuntimeException e) {
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    private static void positive(String setting, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new ValidationException(setting, "must be positive, was " + value);
        }
        if (value.toMillis() > Integer.MAX_VALUE) {
            throw new ValidationException(setting, "must be below " + Integer.MAX_VALUE + " ms, was " + value);
        }
    }

    private static int parseInt(Object value) {
        try {
            return Integer.parseInt(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new ValidationException("kafka.property." + ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                    "must be an integer, was '" + value + "'");
        }
    }
}
