package dev.postbox.examples.orders;

import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.testing.TestDatabase;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented {@code postgres,kafka} profile end to end: PostgreSQL, the starter's Kafka route for channel
 * MQ, a real (in-process, single-node KRaft) Kafka broker and the inventory consumer on postbox-kafka's consumer
 * loop. Orders over HTTP are confirmed through the broker; then every ORDER_CREATED is published a second time
 * (the broker really delivers each message twice) and stock is still reserved exactly once per order.
 */
@ActiveProfiles({"postgres", "kafka"})
class OrderFlowKafkaTest extends OrderServiceE2eBase {

    static final TestDatabase DB = TestDatabase.postgres(null);
    static final KafkaCluster KAFKA = startKafka();

    private static final int ORDERS = 200;

    private static KafkaCluster startKafka() {
        KafkaCluster kafka = KafkaCluster.start();
        try {
            kafka.createTopicNamed("order.event", 4); // Postbox never auto-creates topics
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic order.event", e);
        }
        return kafka;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        register(registry, DB);
        registry.add("postbox.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        // the test counts every record in the topic: no demo orders placed at start-up beside its own
        registry.add("order.demo.seed-orders", () -> "0");
    }

    /** Stops the broker when the whole run ends, after Spring closed the context (relay, publisher, consumer loop). */
    @RegisterExtension
    static final BeforeAllCallback STOP_KAFKA_AT_END = context -> context.getRoot()
            .getStore(ExtensionContext.Namespace.create(OrderFlowKafkaTest.class))
            .put("kafka", (ExtensionContext.Store.CloseableResource) KAFKA::close);

    @Override
    protected TestDatabase database() {
        return DB;
    }

    @Test
    void ordersAreConfirmedThroughKafkaAndASecondDeliveryOfEveryMessageReservesNothingMore() throws Exception {
        String user = "kafka-" + UUID.randomUUID();
        long stockBefore = count("SELECT sum(available) FROM t_stock WHERE sku IN ('SKU-1', 'SKU-2')");
        ExecutorService clients = Executors.newFixedThreadPool(8);
        List<String> orderNos = new ArrayList<>();
        try {
            List<Future<String>> placed = new ArrayList<>();
            for (int i = 0; i < ORDERS; i++) {
                String sku = i % 2 == 0 ? "SKU-1" : "SKU-2";
                placed.add(clients.submit(() -> place(user, sku, 1, "9.90")));
            }
            for (Future<String> f : placed) {
                orderNos.add(f.get());
            }
        } finally {
            clients.shutdownNow();
        }
        assertThat(await(Duration.ofSeconds(60), () -> confirmed(user) == ORDERS))
                .as("all %d orders CONFIRMED through Kafka; CONFIRMED: %d", ORDERS, confirmed(user)).isTrue();
        assertThat(count("SELECT count(*) FROM t_stock_reservation r JOIN t_order o ON r.order_no = o.order_no"
                + " WHERE o.user_id = ?", user)).isEqualTo(ORDERS);
        assertThat(await(Duration.ofSeconds(20), () -> count("""
                SELECT count(*) FROM %s e JOIN t_order o ON e.aggregate_id = o.order_no
                WHERE o.user_id = ? AND e.event_type = 'ORDER_CREATED' AND e.publish_status = 2""".formatted(outbox()),
                user) == ORDERS)).isTrue();
        long stockAfterFirst = count("SELECT sum(available) FROM t_stock WHERE sku IN ('SKU-1', 'SKU-2')");

        // publish every ORDER_CREATED of this test again: Kafka delivers each to the consumer a second time
        int again = sql().sql("UPDATE " + outbox() + " SET publish_status = 0, version = version + 1 WHERE event_type ="
                + " 'ORDER_CREATED' AND aggregate_id IN (SELECT order_no FROM t_order WHERE user_id = ?)").param(user).update();
        assertThat(again).isEqualTo(ORDERS);
        assertThat(await(Duration.ofSeconds(30), () -> count("""
                SELECT count(*) FROM %s e JOIN t_order o ON e.aggregate_id = o.order_no
                WHERE o.user_id = ? AND e.event_type = 'ORDER_CREATED' AND e.publish_status = 2""".formatted(outbox()),
                user) == ORDERS)).as("republished").isTrue();
        // the consumer commits each offset after that record's transaction: once it has caught up with the end of
        // the topic, every second delivery has been handled
        assertThat(await(Duration.ofSeconds(30), OrderFlowKafkaTest::consumerCaughtUp)).as("consumer lag 0").isTrue();
        assertThat(recordsInTopic()).as("ORDER_CREATED twice and ORDER_CONFIRMED once per order went through the broker")
                .isEqualTo(3L * ORDERS);
        assertThat(count("SELECT count(*) FROM t_stock_reservation r JOIN t_order o ON r.order_no = o.order_no"
                + " WHERE o.user_id = ?", user)).as("still one reservation per order").isEqualTo(ORDERS);
        assertThat(count("SELECT sum(available) FROM t_stock WHERE sku IN ('SKU-1', 'SKU-2')"))
                .as("stock did not move on the second delivery").isEqualTo(stockAfterFirst);
        assertThat(stockBefore - stockAfterFirst).as("one unit per order, taken once").isEqualTo(ORDERS);
        assertThat(count("SELECT count(*) FROM " + postbox.tables().consumeLog() + " WHERE consumer = 'inventory'"
                + " AND event_no IN (SELECT 'ORDER_CREATED:' || order_no FROM t_order WHERE user_id = ?)", user))
                .as("one consume-log row per ORDER_CREATED").isEqualTo(ORDERS);
        assertThat(orderNos).doesNotHaveDuplicates();
    }

    private static boolean consumerCaughtUp() {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = KAFKA.admin().listConsumerGroupOffsets("inventory")
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            return endOffsets().entrySet().stream().allMatch(e -> {
                OffsetAndMetadata c = committed.get(e.getKey());
                return e.getValue().offset() == 0 || c != null && c.offset() >= e.getValue().offset();
            });
        } catch (Exception e) {
            return false;
        }
    }

    private static long recordsInTopic() throws Exception {
        return endOffsets().values().stream().mapToLong(o -> o.offset()).sum();
    }

    private static Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> endOffsets() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            latest.put(new TopicPartition("order.event", p), OffsetSpec.latest());
        }
        return KAFKA.admin().listOffsets(latest).all().get(10, TimeUnit.SECONDS);
    }

    private long confirmed(String user) {
        return count("SELECT count(*) FROM t_order WHERE user_id = ? AND status = 'CONFIRMED'", user);
    }

    private String outbox() {
        return postbox.tables().outbox();
    }
}
