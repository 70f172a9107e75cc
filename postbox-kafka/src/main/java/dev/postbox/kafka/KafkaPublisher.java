package dev.postbox.kafka;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.spi.Runs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Publishes outbox events to Kafka through one idempotent {@link KafkaProducer}: topic = the event's
 * {@code topic}, key = its {@code aggregate_id} (so one aggregate stays on one partition, in order),
 * value = the payload's UTF-8 bytes unchanged, headers = {@link Envelope#toHeaders()} as UTF-8 bytes.
 * <pre>{@code
 * try (KafkaPublisher kafka = KafkaPublisher.builder().bootstrapServers("localhost:9092").build();
 *      Relay relay = postbox.relay(Routes.of("KAFKA", kafka)).instanceId("relay-1").start()) { ... }
 * }</pre>
 * The whole batch is handed to the producer at once and every record's outcome is reported by its own
 * callback; no call waits for an acknowledgement.
 * <p>
 * <b>Order lane = the topic</b> ({@link Publisher#orderLane}): the relay hands over a whole batch with
 * every aggregate's run on one topic in one call. The records of a run share their key, hence their
 * partition, and the idempotent producer ({@code max.in.flight.requests.per.connection <= 5}) writes a
 * partition in send order, retrying in order. When a record of a run fails before the producer took it
 * (no topic, refused by the client as larger than {@code max.request.size}, a metadata timeout), the
 * later records of its aggregate in the call are not sent: they are reported {@code retry("not sent: ...")}
 * and the relay holds them behind the failed one. A record the broker rejects later (larger than the
 * topic's {@code max.message.bytes}) may have records of its run stored after it; those are reported not
 * published ({@link Runs#stopAfterFailure}), and the relay re-sends them after it (duplicates for the inbox). Broker failures are retryable: the producer reconnects
 * by itself, so the same publisher works again once the broker is back. An event without a topic, a topic
 * that does not exist (with auto-creation off), an invalid topic name, a record too large and an
 * authorization failure go DEAD with the reason. Thread-safe; {@link #close()} closes the producer.
 */
public final class KafkaPublisher implements Publisher, AutoCloseable {

    private final Producer<String, byte[]> producer;
    private final KafkaErrors errors;
    private final Map<String, Object> producerConfig;

    KafkaPublisher(Map<String, Object> producerConfig, Admin admin, Duration maxBlock) {
        this.producerConfig = Collections.unmodifiableMap(new HashMap<>(producerConfig));
        Properties p = new Properties();
        p.putAll(producerConfig);
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        this.errors = new KafkaErrors(admin, maxBlock);
    }

    /** A new builder; see {@link KafkaPublisherBuilder} for the settings and their defaults. */
    public static KafkaPublisherBuilder builder() {
        return new KafkaPublisherBuilder();
    }

    /** The configuration the producer was built with (for inspection; includes the forced settings). */
    public Map<String, Object> producerConfig() {
        return producerConfig;
    }

    @Override
    public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
        List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
        // A send waits up to max.block.ms for a topic's metadata; once one send of a topic timed out there,
        // the rest of that topic's events in this batch fail at once instead of each waiting again.
        Map<String, Throwable> blockedTopics = new HashMap<>();
        // aggregates (type, id) whose run in this call failed before the producer took a record: by event_no
        Map<List<String>, String> stopped = new HashMap<>();
        for (OutboxRecord r : records) {
            List<String> aggregate = Arrays.asList(r.aggregateType(), r.aggregateId());
            String failed = stopped.get(aggregate);
            if (failed != null) {
                out.add(CompletableFuture.completedFuture(PublishResult.retry("not sent: event " + failed
                        + " of its aggregate failed before it in the same batch")));
                continue;
            }
            Sent sent = send(r, blockedTopics);
            if (sent.failedAtOnce()) {
                stopped.put(aggregate, r.eventNo());
            }
            out.add(sent.outcome());
        }
        return Runs.stopAfterFailure(records, out);
    }

    /** The topic: a run of one aggregate on one topic is one key on one partition, written in send order. */
    @Override
    public Object orderLane(OutboxRecord event) {
        return event.topic() == null || event.topic().isBlank() ? null : event.topic();
    }

    /** Kafka, the event's topic. */
    @Override
    public dev.postbox.spi.Destination destination(OutboxRecord event) {
        return new dev.postbox.spi.Destination("kafka", event.topic());
    }

    /** A send's outcome, and whether it failed before the producer took the record (nothing later may follow it). */
    private record Sent(CompletionStage<PublishResult> outcome, boolean failedAtOnce) {
    }

    private Sent send(OutboxRecord r, Map<String, Throwable> blockedTopics) {
        String topic = r.topic();
        if (topic == null || topic.isBlank()) {
            return new Sent(CompletableFuture.completedFuture(PublishResult.dead("event " + r.eventNo()
                    + " has no topic: a Kafka event needs one")), true);
        }
        Throwable blocked = blockedTopics.get(topic);
        if (blocked != null) {
            return new Sent(errors.outcome(topic, blocked), true);
        }
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        try {
            producer.send(record(topic, r), (metadata, error) -> done.complete(error));
        } catch (RuntimeException e) {
            done.complete(e);
        }
        // a metadata timeout, a record refused by the client: reported through the callback before send() returns
        Throwable early = done.getNow(null);
        if (early instanceof TimeoutException) {
            blockedTopics.put(topic, early);
        }
        return new Sent(done.thenCompose(error -> error == null
                ? CompletableFuture.completedFuture(PublishResult.published()) : errors.outcome(topic, error)),
                early != null);
    }

    static ProducerRecord<String, byte[]> record(String topic, OutboxRecord r) {
        Map<String, String> envelope = Envelope.of(r).toHeaders();
        List<Header> headers = new ArrayList<>(envelope.size());
        envelope.forEach((name, value) -> headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8))));
        return new ProducerRecord<>(topic, null, r.aggregateId(), r.payload().getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Closes the producer, waiting up to five seconds for records still in flight. */
    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(5));
        } finally {
            errors.close();
        }
    }
}
