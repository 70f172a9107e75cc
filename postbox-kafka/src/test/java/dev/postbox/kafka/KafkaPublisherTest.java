package dev.postbox.kafka;

import dev.postbox.common.ValidationException;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.inbox.InboxResult;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The publisher and the consumer loop against a real in-process KRaft broker, PostgreSQL for outbox and inbox. */
class KafkaPublisherTest extends KafkaTestBase {

    private OutboxRecord write(OutboxEvent event) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, event);
            c.commit();
        }
        return postbox.queries().outbox().byEventNo(event.eventNo()).orElseThrow();
    }

    private OutboxEvent.Builder event(String eventNo, String topic) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", "A1").eventType("ORDER_CHANGED")
                .channel("KAFKA").topic(topic).payload("{\"seq\":1}");
    }

    private static PublishResult publishOne(KafkaPublisher publisher, OutboxRecord r) throws Exception {
        return publisher.publish(List.of(r)).get(0).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + topic, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (out.size() < expected && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void carriesEveryEnvelopeFieldInHeadersAndThePayloadByteForByte() throws Exception {
        String topic = kafka.createTopic("roundtrip", 3);
        String payload = "{\"seq\":7,\"name\":\"Zoë Łódź 東京 🚀\",\"note\":\"tab\\there\"}";
        OutboxRecord r = write(event("rt-1", topic).aggregate("ORDER", "O-42").eventVersion(3).source("shop")
                .traceId("trace-abc").payload(payload)
                .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                .header("tenant", "eu-west").header("x-request-id", "ünïcode-42").build());
        try (KafkaPublisher publisher = publisher().build()) {
            assertThat(publishOne(publisher, r)).isEqualTo(PublishResult.published());
        }
        List<ConsumerRecord<String, byte[]>> got = readAll(topic, 1);
        assertThat(got).hasSize(1);
        ConsumerRecord<String, byte[]> record = got.get(0);
        assertThat(record.key()).isEqualTo("O-42");
        assertThat(record.value()).isEqualTo(payload.getBytes(StandardCharsets.UTF_8));
        Map<String, String> headers = KafkaEnvelopeConsumer.headers(record);
        assertThat(headers).containsExactlyInAnyOrderEntriesOf(Envelope.of(r).toHeaders());
        assertThat(headers).containsEntry("postbox-event-no", "rt-1").containsEntry("postbox-event-version", "3")
                .containsEntry("postbox-aggregate-type", "ORDER").containsEntry("postbox-aggregate-id", "O-42")
                .containsEntry("postbox-trace-id", "trace-abc").containsEntry("postbox-source", "shop")
                .containsEntry("postbox-create-time", r.createTime().toString())
                .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                .containsEntry("tenant", "eu-west").containsEntry("x-request-id", "ünïcode-42");
        Envelope back = Envelope.fromHeaders(headers, new String(record.value(), StandardCharsets.UTF_8));
        assertThat(back).isEqualTo(Envelope.of(r));
        kafka.deleteTopic(topic);
    }

    @Test
    void theProducerIsIdempotentWithAllAcksAndAtMostFiveInFlight() {
        try (KafkaPublisher publisher = publisher().build()) {
            assertThat(publisher.producerConfig())
                    .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                    .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                    .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5)
                    .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 8000)
                    .containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000L);
        }
    }

    @Test
    @SuppressWarnings("try") // the loop only needs closing
    void aRepublishedEventIsAbsorbedByTheInboxAndItsWorkRunsOnce() throws Exception {
        String topic = kafka.createTopic("dedup", 3);
        OutboxRecord r = write(event("dup-1", topic).build());
        List<InboxResult.Outcome> outcomes = new CopyOnWriteArrayList<>();
        EnvelopeConsumer consumer = recording("dedup");
        try (KafkaPublisher publisher = publisher().build();
             KafkaEnvelopeConsumer loop = consume(consumer, topic).listener(new KafkaEnvelopeConsumer.Listener() {
                 @Override
                 public void accepted(ConsumerRecord<String, byte[]> record, InboxResult<Void> result) {
                     outcomes.add(result.outcome());
                 }
             }).start()) {
            assertThat(publishOne(publisher, r)).isEqualTo(PublishResult.published());
            assertThat(publishOne(publisher, r)).as("a second send of the same row (e.g. after a lost ack)")
                    .isEqualTo(PublishResult.published());
            await(Duration.ofSeconds(30), "both deliveries", () -> outcomes.size() == 2);
        }
        assertThat(outcomes).containsExactly(InboxResult.Outcome.RAN, InboxResult.Outcome.DUPLICATE);
        assertThat(readAll(topic, 2)).as("Kafka keeps both sends: its idempotence covers the producer's own retries only")
                .hasSize(2);
        assertThat(count("SELECT COUNT(*) FROM received WHERE consumer = 'dedup'")).as("work ran once").isEqualTo(1);
        kafka.deleteTopic(topic);
    }

    @Test
    void misroutedEventsGoDeadWithTheReason() throws Exception {
        String topic = kafka.createTopic("routes", 1);
        try (KafkaPublisher publisher = publisher().build()) {
            PublishResult missing = publishOne(publisher, write(event("mis-1", "no-such-topic-" + System.nanoTime()).build()));
            assertThat(missing.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(missing.reason()).contains("does not exist");

            String absent = "absent-" + System.nanoTime();
            List<OutboxRecord> batch = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                batch.add(write(event("absent-" + i, absent).aggregate("ORDER", "M" + i).build()));
            }
            long started = System.nanoTime();
            List<PublishResult> results = new ArrayList<>();
            for (var stage : publisher.publish(batch)) {
                results.add(stage.toCompletableFuture().get(20, TimeUnit.SECONDS));
            }
            assertThat(results).allMatch(x -> x.kind() == PublishResult.Kind.DEAD && x.reason().contains("does not exist"));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("one metadata wait for the whole batch, not 30")
                    .isLessThan(Duration.ofSeconds(6));

            PublishResult invalid = publishOne(publisher, write(event("mis-2", "bad topic name!").build()));
            assertThat(invalid.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(invalid.reason()).contains("InvalidTopicException");

            PublishResult noTopic = publishOne(publisher, write(event("mis-3", null).build()));
            assertThat(noTopic).isEqualTo(PublishResult.dead("event mis-3 has no topic: a Kafka event needs one"));

            assertThat(publishOne(publisher, write(event("mis-ok", topic).build()))).isEqualTo(PublishResult.published());
        }
        try (KafkaPublisher small = publisher().property(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1024).build()) {
            PublishResult tooLarge = publishOne(small, write(event("mis-4", topic)
                    .payload("{\"seq\":1,\"pad\":\"" + "x".repeat(4000) + "\"}").build()));
            assertThat(tooLarge.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(tooLarge.reason()).contains("RecordTooLargeException");
        }
        kafka.deleteTopic(topic);
    }

    @Test
    void theRelayRecordsAnEventForAMissingTopicAsDeadAndPublishesTheRest() throws Exception {
        String topic = kafka.createTopic("relay-routes", 2);
        String missing = "missing-" + System.nanoTime();
        write(event("rd-1", missing).aggregate("ORDER", "B1").build());
        write(event("rd-2", topic).aggregate("ORDER", "B2").build());
        write(event("rd-3", topic).aggregate("ORDER", "B3").channel("NOWHERE").build());
        try (KafkaPublisher publisher = publisher().build();
             Relay relay = postbox.relay(Routes.of("KAFKA", publisher)).instanceId("r-dead").build()) {
            while (relay.runOnce().claimed() > 0) {
                // drain
            }
        }
        OutboxRecord dead = postbox.queries().outbox().byEventNo("rd-1").orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.retryCount()).as("not retried").isLessThanOrEqualTo(1);
        assertThat(dead.failReason()).contains("topic '" + missing + "' does not exist");
        OutboxRecord unrouted = postbox.queries().outbox().byEventNo("rd-3").orElseThrow();
        assertThat(unrouted.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(unrouted.failReason()).contains("no publisher for channel 'NOWHERE'");
        assertThat(postbox.queries().outbox().byEventNo("rd-2").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
        kafka.deleteTopic(topic);
    }

    @Test
    @SuppressWarnings("try") // the loop only needs closing
    void aRecordThatIsNotAnEnvelopeIsSkippedAndCommittedAndTheNextOneRuns() throws Exception {
        String topic = kafka.createTopic("foreign", 1);
        List<String> rejected = new CopyOnWriteArrayList<>();
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topic, "k", "{\"hello\":1}".getBytes(StandardCharsets.UTF_8))).get(20, TimeUnit.SECONDS);
        }
        try (KafkaPublisher publisher = publisher().build()) {
            assertThat(publishOne(publisher, write(event("after-foreign", topic).build()))).isEqualTo(PublishResult.published());
        }
        try (KafkaEnvelopeConsumer loop = consume(recording("foreign"), topic).listener(new KafkaEnvelopeConsumer.Listener() {
            @Override
            public void rejected(ConsumerRecord<String, byte[]> record, ValidationException problem) {
                rejected.add(problem.field());
            }
        }).start()) {
            await(Duration.ofSeconds(30), "the envelope after the foreign record",
                    () -> countQuietly("SELECT COUNT(*) FROM received WHERE consumer = 'foreign'") == 1);
            await(Duration.ofSeconds(10), "the commit of both records", () -> committed("foreign", topic) == 2);
        }
        assertThat(rejected).containsExactly(Envelope.EVENT_VERSION);
        kafka.deleteTopic(topic);
    }

    private long committed(String group, String topic) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
            return o == null ? -1 : o.offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @SuppressWarnings("try") // the loop only needs closing
    void aHandlerFailureIsRedeliveredAndNothingAfterItRunsFirst() throws Exception {
        String topic = kafka.createTopic("failing", 1);
        AtomicInteger attempts = new AtomicInteger();
        List<String> ran = new CopyOnWriteArrayList<>();
        EnvelopeConsumer flaky = new EnvelopeConsumer(ds, postbox.inbox(), "flaky", (c, e) -> {
            if (e.eventNo().equals("f-1") && attempts.incrementAndGet() <= 2) {
                throw new IllegalStateException("downstream not ready");
            }
            ran.add(e.eventNo());
        });
        try (KafkaPublisher publisher = publisher().build()) {
            for (String no : List.of("f-0", "f-1", "f-2")) {
                assertThat(publishOne(publisher, write(event(no, topic).build()))).isEqualTo(PublishResult.published());
            }
        }
        List<String> failed = new CopyOnWriteArrayList<>();
        try (KafkaEnvelopeConsumer loop = consume(flaky, topic).listener(new KafkaEnvelopeConsumer.Listener() {
            @Override
            public void failed(ConsumerRecord<String, byte[]> record, Exception error) {
                failed.add(record.offset() + ":" + error.getMessage());
            }
        }).start()) {
            await(Duration.ofSeconds(30), "all three events", () -> ran.size() == 3);
            await(Duration.ofSeconds(10), "the commit of all three", () -> committed("flaky", topic) == 3);
        }
        assertThat(ran).containsExactly("f-0", "f-1", "f-2");
        assertThat(attempts).hasValue(3);
        assertThat(failed).containsExactly("1:downstream not ready", "1:downstream not ready");
        kafka.deleteTopic(topic);
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        assertThatThrownBy(() -> KafkaPublisher.builder().build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.bootstrapServers");
        assertThatThrownBy(() -> publisher().deliveryTimeout(Duration.ofSeconds(1)).requestTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.deliveryTimeout")
                .hasMessageContaining("linger + requestTimeout");
        assertThatThrownBy(() -> publisher().maxBlock(Duration.ZERO).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.maxBlock");
        assertThatThrownBy(() -> publisher().property("acks", "1").build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.property.acks");
        assertThatThrownBy(() -> publisher().property("enable.idempotence", false).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.property.enable.idempotence");
        assertThatThrownBy(() -> publisher().property("max.in.flight.requests.per.connection", 6).build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("max.in.flight.requests.per.connection")
                .hasMessageContaining("at most 5");
        assertThatThrownBy(() -> publisher().property("compression.type", "bogus").build())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.property")
                .hasMessageContaining("compression.type");
        EnvelopeConsumer c = recording("settings");
        assertThatThrownBy(() -> KafkaEnvelopeConsumer.builder(c).groupId("g").topics("t").start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.bootstrapServers");
        assertThatThrownBy(() -> KafkaEnvelopeConsumer.builder(c).bootstrapServers("localhost:1").topics("t").start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.groupId");
        assertThatThrownBy(() -> KafkaEnvelopeConsumer.builder(c).bootstrapServers("localhost:1").groupId("g").start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.topics");
        assertThatThrownBy(() -> consume(c, "t").property("enable.auto.commit", true).start())
                .isInstanceOf(ValidationException.class).hasMessageContaining("kafka.property.enable.auto.commit");
    }
}
