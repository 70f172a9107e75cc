package dev.postbox.kafka;

import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.inbox.InboxResult;
import dev.postbox.internal.poll.PollLoop;
import dev.postbox.spi.Envelope;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Feeds Kafka records to an {@link EnvelopeConsumer} on its own thread: reads the envelope from the
 * record's headers, runs {@link EnvelopeConsumer#accept} and commits the record's offset only after it
 * returned (RAN or DUPLICATE). A handler failure commits nothing past the failed record: its partition
 * is rewound to it and paused for the retry backoff, then the record comes again (other partitions go
 * on). A record that is not a Postbox envelope (a required header missing) is logged with the header's
 * name, reported to the {@link Listener} and committed, so that it does not block its partition forever.
 * <pre>{@code
 * EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory", (c, e) -> reserve(c, e));
 * try (KafkaEnvelopeConsumer loop = KafkaEnvelopeConsumer.builder(inventory)
 *         .bootstrapServers("localhost:9092").groupId("inventory").topics("order.event").start()) { ... }
 * }</pre>
 * Auto-commit is always off. {@link #close()} stops the loop (the record being handled finishes) and
 * closes the consumer; the other methods are thread-safe.
 */
public final class KafkaEnvelopeConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaEnvelopeConsumer.class);

    /** Hooks for metrics and tests; every method defaults to doing nothing and runs on the poll thread. */
    public interface Listener {
        /** Does nothing. */
        Listener NOOP = new Listener() { };

        /** {@code record} was handed to the consumer and committed with {@code result}. */
        default void accepted(ConsumerRecord<String, byte[]> record, InboxResult<Void> result) {
        }

        /** {@code record} is not a Postbox envelope ({@code problem} names the header) and was skipped. */
        default void rejected(ConsumerRecord<String, byte[]> record, ValidationException problem) {
        }

        /** The handler failed on {@code record}; it will come again after the backoff. */
        default void failed(ConsumerRecord<String, byte[]> record, Exception error) {
        }
    }

    /** How long {@link #close()} waits for the record in hand, the last commit and the consumer's close. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final KafkaEnvelopeConsumerBuilder config;
    private final EnvelopeConsumer consumer;
    /** Not thread-safe: used on the loop's thread only, but for {@code wakeup()} from {@link #close()}. */
    private final Consumer<String, byte[]> kafka;
    private final Map<TopicPartition, Long> pausedUntil = new HashMap<>();
    private final PollLoop loop;
    private boolean subscribed;

    KafkaEnvelopeConsumer(KafkaEnvelopeConsumerBuilder config, Map<String, Object> consumerConfig) {
        this.config = config;
        this.consumer = config.consumer;
        Properties p = new Properties();
        p.putAll(consumerConfig);
        this.kafka = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        // every turn waits in poll() and answers MORE: the engine never adds a pause of its own
        this.loop = new PollLoop("kafka consumer '" + consumer.consumer() + "'", "postbox-kafka-" + consumer.consumer(),
                1, config.pollTimeout, config.pollTimeout, log);
    }

    /** A builder for the loop that feeds {@code consumer}. */
    public static KafkaEnvelopeConsumerBuilder builder(EnvelopeConsumer consumer) {
        return new KafkaEnvelopeConsumerBuilder(consumer);
    }

    KafkaEnvelopeConsumer start() {
        loop.start(i -> new PollLoop.Body() {
            @Override
            public PollLoop.Outcome turn() {
                return pollOnce();
            }

            @Override
            public void stop() {
                kafka.wakeup(); // the one thread-safe method: ends a poll or commit in progress
            }

            @Override
            public void exit(Throwable died) {
                closeKafka();
            }
        });
        return this;
    }

    /** True while the poll loop runs. */
    public boolean isRunning() {
        return loop.isRunning();
    }

    /**
     * One turn: a poll (waiting up to the poll timeout), its records handled, what was handled committed.
     * An unexpected failure stops the loop and the consumer for good, as a wake-up does outside close.
     */
    private PollLoop.Outcome pollOnce() {
        try {
            subscribe();
            resumeDue();
            commit(handleAll(kafka.poll(config.pollTimeout)));
        } catch (WakeupException e) {
            if (!loop.closing()) {
                log.error("kafka consumer '{}' woken up unexpectedly; stopping", consumer.consumer(), e);
                stopFromLoop();
            }
        } catch (RuntimeException | Error e) {
            log.error("kafka consumer '{}' stopped on an unexpected error", consumer.consumer(), e);
            stopFromLoop();
        }
        return PollLoop.Outcome.MORE;
    }

    /** Closes the loop from its own thread: no turn follows, and the loop's exit closes the consumer. */
    private void stopFromLoop() {
        loop.close(Duration.ZERO, Duration.ZERO);
    }

    private void subscribe() {
        if (subscribed) {
            return;
        }
        kafka.subscribe(config.topics, new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                partitions.forEach(pausedUntil::remove);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            }
        });
        subscribed = true;
    }

    /**
     * Handles each partition's records in order, up to the first that fails (or the close): its partition
     * is rewound to it and, unless closing, paused for the retry backoff. Returns the offsets to commit.
     */
    private Map<TopicPartition, OffsetAndMetadata> handleAll(ConsumerRecords<String, byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> done = new LinkedHashMap<>();
        for (TopicPartition tp : records.partitions()) {
            for (ConsumerRecord<String, byte[]> record : records.records(tp)) {
                if (loop.closing() || !handle(record)) {
                    kafka.seek(tp, record.offset());
                    if (!loop.closing()) {
                        kafka.pause(List.of(tp));
                        pausedUntil.put(tp, System.nanoTime() + config.retryBackoff.toNanos());
                    }
                    break;
                }
                done.put(tp, new OffsetAndMetadata(record.offset() + 1));
            }
        }
        return done;
    }

    private void closeKafka() {
        try {
            kafka.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
            log.warn("kafka consumer '{}' did not close cleanly", consumer.consumer(), e);
        }
    }

    /** True when the record is done with (ran, duplicate or rejected); false to retry it. */
    private boolean handle(ConsumerRecord<String, byte[]> record) {
        Envelope envelope;
        try {
            envelope = Envelope.fromHeaders(headers(record), record.value() == null ? null
                    : new String(record.value(), StandardCharsets.UTF_8));
        } catch (ValidationException e) {
            log.warn("kafka consumer '{}' skips {}-{}@{}: not a Postbox envelope, {} ({})", consumer.consumer(),
                    record.topic(), record.partition(), record.offset(), e.field(), e.getMessage());
            config.listener.rejected(record, e);
            return true;
        }
        try {
            InboxResult<Void> result = consumer.accept(envelope);
            config.listener.accepted(record, result);
            return true;
        } catch (RuntimeException e) {
            log.warn("kafka consumer '{}' failed on event {} ({}-{}@{}); retrying in {}", consumer.consumer(),
                    envelope.eventNo(), record.topic(), record.partition(), record.offset(), config.retryBackoff, e);
            config.listener.failed(record, e);
            return false;
        }
    }

    static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            if (h.value() != null) {
                headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
            }
        }
        return headers;
    }

    private void resumeDue() {
        if (pausedUntil.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        List<TopicPartition> due = new ArrayList<>();
        pausedUntil.forEach((tp, until) -> {
            if (now - until >= 0) {
                due.add(tp);
            }
        });
        due.forEach(pausedUntil::remove);
        kafka.resume(due);
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> done) {
        if (done.isEmpty()) {
            return;
        }
        try {
            kafka.commitSync(done);
        } catch (WakeupException e) {
            kafka.commitSync(done); // close() woke the poll thread: the handled records still get their commit
            throw e;
        } catch (KafkaException e) {
            // e.g. the group rebalanced: the records come again and the inbox absorbs them
            log.warn("kafka consumer '{}' could not commit {}: {}", consumer.consumer(), done, e.toString());
        }
    }

    /**
     * Stops the loop, commits what was handled and closes the Kafka consumer; waits up to 10 s. The record
     * in hand is never interrupted: past the 10 s it finishes, is committed and the consumer closes after.
     */
    @Override
    public void close() {
        loop.closeUninterrupted(CLOSE_TIMEOUT);
    }
}
