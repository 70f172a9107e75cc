package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxListener.Transport;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.util.List;
import java.util.Map;

import static dev.postbox.spring.autoconfigure.listener.ListenerApp.*;
import static org.assertj.core.api.Assertions.assertThat;

/** @PostboxListener on the in-process event bus, on PostgreSQL: once per event, in the delivery's transaction. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostboxListenerTest {

    private TestDatabase db;
    private DataSource ds;

    @BeforeAll
    void open() {
        db = TestDatabase.postgres(null);
        ds = db.dataSource();
    }

    @AfterAll
    void close() {
        db.close();
    }

    @BeforeEach
    void clean() {
        ds = db.dataSource(); // a context that closed it (a failed start) leaves a closed pool: take the reopened one
        createReservations(ds);
        // the tests share one schema: an event an earlier test left to be retried (V-3, refused) must not reach the
        // next test's relay and count as that test's failure
        try {
            new org.springframework.jdbc.core.JdbcTemplate(ds).execute("DELETE FROM biz_outbox_event");
        } catch (org.springframework.dao.DataAccessException noTablesYet) {
            // the first test's context creates them
        }
    }

    @Test
    void eachEventRunsItsMethodOnceWithThePayloadMappedAndTheEnvelope() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds)).run(context -> {
            assertThat(context).hasNotFailed();
            Inventory inventory = context.getBean(Inventory.class);
            write(context, List.of(
                    created("EVENT_BUS", "order.event", "C-1", 2, "{\"sku\":\"SKU-1\",\"qty\":2,\"currency\":\"USD\",\"later\":1}"),
                    created("EVENT_BUS", "order.event", "C-2", 2, "{\"sku\":\"SKU-2\",\"qty\":1,\"currency\":\"USD\"}"),
                    ofType("ORDER_CANCELLED", "EVENT_BUS", "order.event", "X-1"),
                    ofType("ORDER_SHIPPED", "EVENT_BUS", "order.event", "S-1")));
            for (String e : List.of("C-1", "C-2", "X-1", "S-1")) {
                awaitStatus(ds, e, 2);
            }
            assertThat(inventory.orders).containsExactlyInAnyOrder(new OrderCreated("SKU-1", 2, "USD"),
                    new OrderCreated("SKU-2", 1, "USD"));
            assertThat(inventory.seen).extracting(Envelope::eventNo).containsExactlyInAnyOrder("C-1", "C-2");
            assertThat(inventory.seen).allSatisfy(e -> assertThat(e.eventType()).isEqualTo("ORDER_CREATED"));
            assertThat(inventory.cancelled).containsExactly("{\"orderNo\":\"X-1\"}");
            assertThat(count(ds, "SELECT COUNT(*) FROM reservation")).isEqualTo(2);
            // one consume-log row per event of the consumer, also for the type no method takes (S-1)
            assertThat(count(ds, "SELECT COUNT(*) FROM biz_consume_log WHERE consumer = 'inventory'"
                    + " AND event_no IN ('C-1', 'C-2', 'X-1', 'S-1')")).isEqualTo(4);
            Map<String, Object> details = context.getBean(PostboxListeners.class).details().get(0);
            assertThat(details).containsEntry("consumer", "inventory").containsEntry("transport", "EVENT_BUS")
                    .containsEntry("running", true).containsEntry("ran", 4L).containsEntry("failed", 0L);
        });
    }

    @Test
    void aRedeliveryOfAConsumedEventRunsNothing() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds)).run(context -> {
            write(context, List.of(created("EVENT_BUS", "order.event", "D-1", 2, "{\"sku\":\"SKU-1\",\"qty\":1,\"currency\":\"EUR\"}")));
            awaitStatus(ds, "D-1", 2);
            OutboxRecord again = context.getBean(dev.postbox.Postbox.class).queries().outbox().byEventNo("D-1").orElseThrow();
            PublishResult r = context.getBean(EventBus.class).publish(List.of(again)).get(0).toCompletableFuture().join();
            assertThat(r.kind()).isEqualTo(PublishResult.Kind.PUBLISHED);
            assertThat(count(ds, "SELECT COUNT(*) FROM reservation WHERE event_no = 'D-1'")).isEqualTo(1);
            assertThat(context.getBean(Inventory.class).seen).hasSize(1);
            assertThat(context.getBean(PostboxListeners.class).details().get(0)).containsEntry("duplicates", 1L);
        });
    }

    @Test
    void aFailingMethodRollsBackItsJdbcWorkAndTheConsumeLogRowAndTheEventIsRetried() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds)).withPropertyValues("postbox.relay.retry-policy-base=200ms",
                "postbox.relay.retry-policy-cap=200ms").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.failNext.set(1);
            write(context, List.of(created("EVENT_BUS", "order.event", "F-1", 2, "{\"sku\":\"SKU-9\",\"qty\":3,\"currency\":\"EUR\"}")));
            awaitStatus(ds, "F-1", 2);
            // the first attempt inserted a reservation and failed: its insert went with the consume-log row
            assertThat(count(ds, "SELECT COUNT(*) FROM reservation WHERE event_no = 'F-1'")).isEqualTo(1);
            assertThat(count(ds, "SELECT COUNT(*) FROM biz_consume_log WHERE event_no = 'F-1'")).isEqualTo(1);
            assertThat(count(ds, "SELECT retry_count FROM biz_outbox_event WHERE event_no = 'F-1'")).isEqualTo(1);
            assertThat(context.getBean(PostboxListeners.class).details().get(0)).containsEntry("failed", 1L)
                    .containsEntry("ran", 1L).hasEntrySatisfying("lastFailure", f -> assertThat(f.toString())
                            .contains("F-1").contains("stock service down"));
        });
    }

    @Test
    void anOlderVersionIsUpcastAndOneWithoutUpcasterIsRefusedWithAReason() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds))
                .run(context -> {
                    Inventory inventory = context.getBean(Inventory.class);
                    write(context, List.of(
                            created("EVENT_BUS", "order.event", "V-1", 1, "{\"sku\":\"SKU-1\",\"qty\":5}"),
                            created("EVENT_BUS", "order.event", "V-3", 3, "{\"sku\":\"SKU-1\",\"qty\":5,\"currency\":\"EUR\"}")));
                    awaitStatus(ds, "V-1", 2);
                    assertThat(inventory.orders).containsExactly(new OrderCreated("SKU-1", 5, "EUR"));
                    assertThat(inventory.seen.get(0).eventVersion()).isEqualTo(2);
                    dev.postbox.testing.Await.until("V-3 refused", WAIT, () -> String.valueOf(outbox(ds).get("V-3"))
                            .contains("no upcaster"), () -> outbox(ds));
                    assertThat(outbox(ds).get("V-3")).contains("consumer 'inventory'")
                            .contains("accepts ORDER_CREATED version(s) [2]").contains("has version 3")
                            .contains("no upcaster reads ORDER_CREATED version 3");
                    assertThat(count(ds, "SELECT COUNT(*) FROM reservation WHERE event_no = 'V-3'")).isZero();
                });
    }

    @Test
    void deliveriesAreCountedInTheMeterByOutcome() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds)).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    write(context, List.of(created("EVENT_BUS", "order.event", "M-1", 2, "{\"sku\":\"A\",\"qty\":1,\"currency\":\"EUR\"}")));
                    awaitStatus(ds, "M-1", 2);
                    MeterRegistry r = context.getBean(MeterRegistry.class);
                    assertThat(r.get("postbox.listener.deliveries").tag("consumer", "inventory").tag("transport", "EVENT_BUS")
                            .tag("outcome", "RAN").counter().count()).isEqualTo(1.0);
                });
    }

    @Test
    void stoppedListenersUnsubscribeSoTheBusDeadLettersByDefault() {
        runner(ds).withBean(Inventory.class, () -> new Inventory(ds)).run(context -> {
            PostboxListeners listeners = context.getBean(PostboxListeners.class);
            assertThat(listeners.isRunning()).isTrue();
            assertThat(listeners.getPhase()).isLessThan(dev.postbox.spring.autoconfigure.RelayLifecycle.PHASE);
            listeners.stop();
            assertThat(listeners.notRunning()).isEmpty();
            OutboxRecord r = new OutboxRecord(1L, "U-1", "ORDER", "1", "ORDER_CREATED", 2, "test", "EVENT_BUS", "order.event",
                    null, "{}", Map.of(), dev.postbox.outbox.OutboxStatus.PUBLISHING, 0, 5, null, null, null, null, null, null,
                    null, null, 1, java.time.Instant.now(), java.time.Instant.now());
            PublishResult result = context.getBean(EventBus.class).publish(List.of(r)).get(0).toCompletableFuture().join();
            assertThat(result.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(result.reason()).isEqualTo("no subscriber for topic 'order.event'");
        });
    }

    // start-up failures name the method and what to do

    static class TwoForOneType {
        @PostboxListener(consumer = "billing", eventTypes = "ORDER_CREATED")
        void a(String p) {
        }

        @PostboxListener(consumer = "billing", eventTypes = {"ORDER_PAID", "ORDER_CREATED"})
        void b(String p) {
        }
    }

    static class TwoPayloads {
        @PostboxListener(consumer = "billing")
        void a(String p, OrderCreated o) {
        }
    }

    static class KafkaWithoutCluster {
        @PostboxListener(consumer = "billing", transport = Transport.KAFKA, topics = "order.event")
        void a(String p) {
        }
    }

    static class RabbitWithoutQueue {
        @PostboxListener(consumer = "billing", transport = Transport.RABBITMQ)
        void a(String p) {
        }
    }

    static class UpcasterOfWrongShape {
        @PostboxListener(consumer = "billing")
        void a(String p) {
        }

        @dev.postbox.spring.PostboxUpcaster(eventType = "ORDER_CREATED", from = 1)
        int up(String p) {
            return 1;
        }
    }

    @Test
    void listenersThatCannotBeServedFailTheStartUpNamingTheMethodAndTheFix() {
        assertStartUpFails(TwoForOneType.class, "consumer 'billing' on EVENT_BUS: ", "TwoForOneType.a",
                "TwoForOneType.b", "both take event type ORDER_CREATED; one method per type and consumer");
        assertStartUpFails(TwoPayloads.class, "TwoPayloads.a has two payload parameters");
        assertStartUpFails(KafkaWithoutCluster.class, "consumer 'billing' on KAFKA needs a Kafka cluster: set postbox.kafka.bootstrap-servers");
        assertStartUpFails(RabbitWithoutQueue.class, "consumer 'billing' on RABBITMQ names no queue");
        assertStartUpFails(UpcasterOfWrongShape.class, "@PostboxUpcaster", "UpcasterOfWrongShape.up must take (String payload)");
    }

    private void assertStartUpFails(Class<?> bean, String... fragments) {
        ds = db.dataSource(); // the last failed start closed the pool it was given
        runner(ds).withUserConfiguration(bean).run(context -> {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (root.getCause() != null) {
                root = root.getCause();
            }
            for (String f : fragments) {
                assertThat(root.getMessage()).contains(f);
            }
        });
    }
}
