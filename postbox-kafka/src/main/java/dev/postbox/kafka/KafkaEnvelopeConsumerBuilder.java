package dev.postbox.kafka;

import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.KafkaException;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of a {@link KafkaEnvelopeConsumer}, validated by {@link #start()}. Required:
 * {@link #bootstrapServers}, {@link #groupId} and at least one topic. Offsets are committed by the loop
 * only ({@code enable.auto.commit=false}, always); a group without committed offsets starts at the
 * earliest record unless {@code auto.offset.reset} is set through {@link #property}. Not thread-safe.
 */
public final class KafkaEnvelopeConsumerBuilder {

    /** Default longest wait of one poll. */
    public static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    /** Default pause of a partition after its handler failed, before the record comes again. */
    public static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);

    private static final Set<String> FORCED = Set.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG);

    final EnvelopeConsumer consumer;
    String bootstrapServers;
    String groupId;
    List<String> topics = List.of();
    Duration pollTimeout = POLL_TIMEOUT;
    Duration retryBackoff = RETRY_BACKOFF;
    KafkaEnvelopeConsumer.Listener listener = KafkaEnvelopeConsumer.Listener.NOOP;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    KafkaEnvelopeConsumerBuilder(EnvelopeConsumer consumer) {
        this.consumer = Objects.requireNonNull(consumer, "consumer");
    }

    /** Required: {@code host:port[,host:port...]} of the cluster. */
    public KafkaEnvelopeConsumerBuilder bootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        return this;
    }

    /** Required: the consumer group ({@code group.id}); usually the {@link EnvelopeConsumer#consumer()} name. */
    public KafkaEnvelopeConsumerBuilder groupId(String groupId) {
        this.groupId = groupId;
        return this;
    }

    /** Required: the topics to subscribe to. */
    public KafkaEnvelopeConsumerBuilder topics(String... topics) {
        this.topics = List.of(topics);
        return this;
    }

    /** Longest wait of one poll; default 200 ms. */
    public KafkaEnvelopeConsumerBuilder pollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
        return this;
    }

    /** How long a partition pauses after a handler failure; default 1 s. */
    public KafkaEnvelopeConsumerBuilder retryBackoff(Duration retryBackoff) {
        this.retryBackoff = retryBackoff;
        return this;
    }

    /** Hooks called on the poll thread; default {@link KafkaEnvelopeConsumer.Listener#NOOP}. */
    public KafkaEnvelopeConsumerBuilder listener(KafkaEnvelopeConsumer.Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Any other consumer property (security, {@code auto.offset.reset}, {@code max.poll.records}, ...);
     * auto-commit, the group, the servers and the deserializers cannot be set here.
     */
    public KafkaEnvelopeConsumerBuilder property(String name, Object value) {
        if (name == null || name.isBlank()) {
            throw new ValidationException("kafka.property", "name must not be blank");
        }
        properties.put(name, Objects.requireNonNull(value, "value of " + name));
        return this;
    }

    /**
     * Validates the settings, creates the Kafka consumer and starts the poll loop on its own thread.
     *
     * @throws ValidationException a setting is missing or wrong, naming it
     */
    public KafkaEnvelopeConsumer start() {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new ValidationException("kafka.bootstrapServers", "is required (host:port[,host:port...])");
        }
        if (groupId == null || groupId.isBlank()) {
            throw new ValidationException("kafka.groupId", "is required");
        }
        if (topics.isEmpty() || topics.stream().anyMatch(t -> t == null || t.isBlank())) {
            throw new ValidationException("kafka.topics", "needs at least one topic, none blank, was " + topics);
        }
        if (pollTimeout == null || pollTimeout.isNegative() || pollTimeout.isZero()) {
            throw new ValidationException("kafka.pollTimeout", "must be positive, was " + pollTimeout);
        }
        if (retryBackoff == null || retryBackoff.isNegative()) {
            throw new ValidationException("kafka.retryBackoff", "must be zero or positive, was " + retryBackoff);
        }
        for (String name : properties.keySet()) {
            if (FORCED.contains(name)) {
                throw new ValidationException("kafka.property." + name, "is set by the consumer loop"
                        + " (offsets are committed after the inbox, never automatically)");
            }
        }
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "postbox-" + consumer.consumer());
        config.putAll(properties);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaEnvelopeConsumer loop;
        try {
            loop = new KafkaEnvelopeConsumer(this, config);
        } catch (KafkaException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ValidationException("kafka.property", "the consumer rejected its configuration: " + cause.getMessage());
        }
        return loop.start();
    }
}
