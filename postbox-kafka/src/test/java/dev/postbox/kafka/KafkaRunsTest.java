package dev.postbox.kafka;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole batches through {@link KafkaPublisher}'s order lane (the topic) against a real in-process broker:
 * an aggregate's run goes in one call and arrives in order; a record the client refuses stops the rest of
 * its aggregate's run, which goes out in order once the failed one is resolved; other aggregates go on.
 */
class KafkaRunsTest extends KafkaTestBase {

    /** {@code publisher} counting its calls, with the publisher's own order lane. */
    private static Publisher counting(Publisher publisher, AtomicInteger calls) {
        return new Publisher() {
            @Override
            public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
                calls.incrementAndGet();
                return publisher.publish(records);
            }

            @Override
            public Object orderLane(OutboxRecord event) {
                return publisher.orderLane(event);
            }
        };
    }

    private void write(List<OutboxEvent> events) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().writeAll(c, events);
            c.commit();
        }
    }

    private static OutboxEvent event(String eventNo, String aggregate, String topic, String payload) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregate).eventType("ORDER_CHANGED")
                .channel("KAFKA").topic(topic).payload(payload).build();
    }

    /** The payload seqs per key, in partition order, read until {@code expected} records and one quiet second more. */
    private Map<String, List<Integer>> seqsByKey(String topic, int expected) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "runs-" + topic + "-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        int n = 0;
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.key(), k -> new ArrayList<>())
                            .add(seqOf(new String(r.value(), StandardCharsets.UTF_8)));
                    n++;
                }
                if (n >= expected && quietUntil == Long.MAX_VALUE) {
                    quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                }
            }
        }
        return out;
    }

    private OutboxStatus status(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow().status();
    }

    @Test
    void aBatchOfRunsGoesInOneCallAndArrivesInOrderPerAggregate() throws Exception {
        String topic = kafka.createTopic("runs", 3);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(event("run-" + i, "A" + (i % 20), topic, "{\"seq\":" + i + "}"));
        }
        write(events);
        AtomicInteger calls = new AtomicInteger();
        try (KafkaPublisher kafkaPublisher = publisher().build();
             Relay relay = postbox.relay(counting(Routes.of("KAFKA", kafkaPublisher), calls)).instanceId("r-runs")
                     .batchSize(500).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).isEqualTo(500);
            assertThat(cycle.published()).isEqualTo(500);
        }
        assertThat(calls.get()).as("20 runs of 25 events in one call, not 25 waves").isEqualTo(1);
        Map<String, List<Integer>> seqs = seqsByKey(topic, 500);
        assertThat(seqs).hasSize(20);
        seqs.forEach((key, list) -> assertThat(list).as("aggregate " + key).hasSize(25).isSorted().doesNotHaveDuplicates());
        kafka.deleteTopic(topic);
    }

    @Test
    void aRecordTheClientRefusesHoldsTheRestOfItsRunUnsentUntilItIsResolved() throws Exception {
        String topic = kafka.createTopic("refused", 2);
        String big = "{\"seq\":4,\"pad\":\"" + "x".repeat(8_000) + "\"}";
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(event("big-" + i, "BIG", topic, i == 4 ? big : "{\"seq\":" + i + "}"));
            events.add(event("ok-" + i, "OK", topic, "{\"seq\":" + i + "}"));
        }
        write(events);
        AtomicInteger calls = new AtomicInteger();
        try (KafkaPublisher kafkaPublisher = publisher().property(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4096).build();
             Relay relay = postbox.relay(counting(Routes.of("KAFKA", kafkaPublisher), calls)).instanceId("r-refused")
                     .batchSize(100).build()) {
            Cycle first = relay.runOnce();
            assertThat(calls.get()).isEqualTo(1);
            assertThat(first.claimed()).isEqualTo(20);
            assertThat(first.published()).as("OK's ten and BIG's first four").isEqualTo(14);
            assertThat(status("big-4")).isEqualTo(OutboxStatus.DEAD);
            for (int i = 5; i < 10; i++) {
                OutboxRecord held = postbox.queries().outbox().byEventNo("big-" + i).orElseThrow();
                assertThat(held.status()).as("big-" + i).isEqualTo(OutboxStatus.PENDING);
                assertThat(held.retryCount()).as("held, not an attempt").isZero();
            }
            Map<String, List<Integer>> before = seqsByKey(topic, 14);
            assertThat(before.get("BIG")).as("nothing of BIG after the refused record reached the topic")
                    .containsExactly(0, 1, 2, 3);
            assertThat(before.get("OK")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

            assertThat(relay.runOnce().claimed()).as("BIG waits behind its dead event").isZero();
            assertThat(postbox.admin().cancel("big-4", "test", "too large for the topic")).isTrue();
            Cycle next = relay.runOnce();
            assertThat(next.published()).isEqualTo(5);
        }
        Map<String, List<Integer>> after = seqsByKey(topic, 19);
        assertThat(after.get("BIG")).as("the rest of the run, once, in order").containsExactly(0, 1, 2, 3, 5, 6, 7, 8, 9);
        assertThat(after.get("OK")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        kafka.deleteTopic(topic);
    }
}
