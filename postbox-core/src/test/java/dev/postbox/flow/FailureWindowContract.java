package dev.postbox.flow;

import dev.postbox.Postbox;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.RetryPolicy;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.CompensationRecord;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.inbox.InboxResult;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.Orders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seed 003's failure windows (section 十六), each broken on purpose on a real database: the order and its
 * event commit together, the relay retries, the consumer's inbox absorbs redeliveries, and the
 * compensation log makes a half-done compensation finish exactly once.
 */
public abstract class FailureWindowContract extends DatabaseContract {

    private static final String CONSUMER = "inventory";

    @BeforeAll
    final void createTables() throws Exception {
        inTx(c -> {
            Orders.createTable(c);
            try (var st = c.createStatement()) {
                st.execute("CREATE TABLE stock_reservation (order_no VARCHAR(64) NOT NULL PRIMARY KEY, reserved INT NOT NULL)");
            }
            return null;
        });
    }

    @BeforeEach
    final void emptyTables() throws SQLException {
        exec("DELETE FROM orders");
        exec("DELETE FROM stock_reservation");
    }

    /** Seed 003's order service: the order and ORDER_CREATED in one transaction. */
    private void placeOrder(Connection c, Postbox pb, String orderNo) throws SQLException {
        Orders.insert(c, orderNo, clock.instant());
        pb.outbox().write(c, OutboxEvent.builder().eventNo("ORDER_CREATED:" + orderNo).aggregate("ORDER", orderNo)
                .eventType("ORDER_CREATED").channel("MQ").topic("order.event")
                .payload("{\"orderNo\":\"" + orderNo + "\"}").build());
    }

    /** The inventory consumer: reserves stock for the order, once per event thanks to the inbox. */
    private InboxResult<Void> consume(OutboxRecord event, Runnable failureInjection) throws Exception {
        return inTx(c -> postbox.inbox().once(c, CONSUMER, event.eventNo(), () -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO stock_reservation (order_no, reserved) VALUES (?, 1)")) {
                ps.setString(1, event.aggregateId());
                ps.executeUpdate();
            }
            failureInjection.run();
        }));
    }

    private long reserved(String orderNo) throws SQLException {
        return queryLong("SELECT COUNT(*) FROM stock_reservation WHERE order_no = ?", orderNo);
    }

    /** A publisher that hands each event to {@code delivery}, which says what the broker answered. */
    private static Publisher broker(Function<OutboxRecord, PublishResult> delivery) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>(records.size());
            for (OutboxRecord r : records) {
                out.add(CompletableFuture.completedFuture(delivery.apply(r)));
            }
            return out;
        };
    }

    private Relay relay(Publisher publisher, String id) {
        return postbox.relay(publisher).instanceId(id).poolSize(2).listenForNotifications(false)
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofSeconds(1)))).build();
    }

    private OutboxRecord outbox(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
    }

    @Test
    final void windowA_orderAndEventCommitted_sendFails_relayRetriesUntilItArrives() throws Exception {
        inTx(c -> {
            placeOrder(c, postbox, "ORD-A");
            return null;
        });
        AtomicInteger sends = new AtomicInteger();
        List<String> delivered = new ArrayList<>();
        try (Relay relay = relay(broker(r -> {
            if (sends.incrementAndGet() == 1) {
                return PublishResult.retry("broker unreachable");
            }
            delivered.add(r.eventNo());
            return PublishResult.published();
        }), "relay-a")) {
            Cycle failed = relay.runOnce();
            assertThat(failed.failed()).isEqualTo(1);
            assertThat(count("orders")).as("the order is still there").isEqualTo(1);
            OutboxRecord waiting = outbox("ORDER_CREATED:ORD-A");
            assertThat(waiting.status()).as("so is its event").isEqualTo(OutboxStatus.FAILED);
            assertThat(waiting.failReason()).contains("broker unreachable");
            clock.advance(Duration.ofSeconds(1));
            assertThat(relay.runOnce().published()).isEqualTo(1);
        }
        assertThat(delivered).containsExactly("ORDER_CREATED:ORD-A");
        assertThat(outbox("ORDER_CREATED:ORD-A").status()).isEqualTo(OutboxStatus.PUBLISHED);
    }

    @Test
    final void windowB_outboxWriteFails_orderRollsBackWithIt() throws Exception {
        Postbox broken = newPostbox(b -> b.tablePrefix("missing_")); // its outbox table does not exist
        assertThatThrownBy(() -> inTx(c -> {
            placeOrder(c, broken, "ORD-B");
            return null;
        })).isInstanceOf(PostboxSqlException.class).hasMessageContaining("missing_outbox_event");
        assertThat(count("orders")).as("no order without its event").isZero();
        assertThat(count(postbox.tables().outbox())).isZero();
    }

    @Test
    final void windowC_consumerFailsAndLosesItsAck_redeliveriesChangeStockExactlyOnce() throws Exception {
        inTx(c -> {
            placeOrder(c, postbox, "ORD-C");
            return null;
        });
        List<InboxResult.Outcome> outcomes = new ArrayList<>();
        AtomicInteger delivery = new AtomicInteger();
        try (Relay relay = relay(broker(r -> {
            int n = delivery.incrementAndGet();
            try {
                InboxResult<Void> result = consume(r, () -> {
                    if (n == 1) {
                        throw new IllegalStateException("stock database timeout");
                    }
                });
                outcomes.add(result.outcome());
                // delivery 2 consumed and committed, but the process died before acknowledging it
                return n == 2 ? PublishResult.retry("ack lost") : PublishResult.published();
            } catch (Exception consumerFailed) {
                return PublishResult.retry("consumer failed: " + consumerFailed.getMessage());
            }
        }), "relay-c")) {
            assertThat(relay.runOnce().failed()).isEqualTo(1);
            assertThat(reserved("ORD-C")).as("the failed consume left nothing").isZero();
            clock.advance(Duration.ofSeconds(1));
            assertThat(relay.runOnce().failed()).isEqualTo(1);
            assertThat(reserved("ORD-C")).isEqualTo(1);
            clock.advance(Duration.ofSeconds(1));
            assertThat(relay.runOnce().published()).isEqualTo(1);
        }
        assertThat(outcomes).containsExactly(InboxResult.Outcome.RAN, InboxResult.Outcome.DUPLICATE);
        assertThat(reserved("ORD-C")).isEqualTo(1);
        assertThat(outbox("ORDER_CREATED:ORD-C").retryCount()).isEqualTo(2);
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(1);
    }

    @Test
    final void windowD_compensationDiesHalfway_nextRunFinishesItExactlyOnce() throws Exception {
        inTx(c -> {
            Orders.insert(c, "ORD-D", clock.instant());
            return null;
        });
        clock.advance(Duration.ofMinutes(11));
        AtomicInteger actions = new AtomicInteger();
        CompensationJob.KeyAction cancel = (c, orderNo) -> {
            actions.incrementAndGet();
            Orders.cancelUnconditionally(c, orderNo);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("ORDER_CANCELLED:" + orderNo)
                    .aggregate("ORDER", orderNo).eventType("ORDER_CANCELLED").channel("MQ").topic("order.event")
                    .payload("{}").build());
        };

        // 1. the process dies after the order was cancelled and the event written, before the commit
        Connection dying = ds.getConnection();
        dying.setAutoCommit(false);
        postbox.compensations().once(dying, "ORDER", "ORD-D", "TIMEOUT_CANCEL", c -> {
            cancel.run(c, "ORD-D");
            return null;
        });
        dying.close(); // never committed: the database rolls the whole transaction back
        assertThat(queryString("SELECT status FROM orders WHERE order_no = 'ORD-D'")).isEqualTo("CREATED");
        assertThat(postbox.compensations().find("ORDER", "ORD-D", "TIMEOUT_CANCEL")).isEmpty();
        assertThat(count(postbox.tables().outbox())).isZero();

        // 2. the action fails halfway (order cancelled, event not yet written): undone, attempt recorded
        CompensationResult<Void> half = inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-D", "TIMEOUT_CANCEL", conn -> {
            Orders.cancelUnconditionally(conn, "ORD-D");
            throw new IllegalStateException("crashed between cancel and event");
        }));
        assertThat(half.outcome()).isEqualTo(CompensationResult.Outcome.FAILED);
        assertThat(queryString("SELECT status FROM orders WHERE order_no = 'ORD-D'")).isEqualTo("CREATED");

        // 3. the next run of the job finishes it, and no later run repeats it
        CompensationJob job = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
                .scan((c, limit) -> Orders.timedOut(c, clock.instant().minus(Duration.ofMinutes(10)), limit))
                .action(cancel).build();
        assertThat(job.runOnce().done()).isEqualTo(1);
        assertThat(job.runOnce().scanned()).isZero();
        CompensationResult<Void> again = inTx(c -> postbox.compensations().once(c, "ORDER", "ORD-D", "TIMEOUT_CANCEL",
                conn -> {
                    cancel.run(conn, "ORD-D");
                    return null;
                }));
        assertThat(again.outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE);

        CompensationRecord log = postbox.compensations().find("ORDER", "ORD-D", "TIMEOUT_CANCEL").orElseThrow();
        assertThat(log.status()).isEqualTo(CompensationStatus.DONE);
        assertThat(log.attempts()).isEqualTo(2);
        assertThat(queryLong("SELECT cancel_count FROM orders WHERE order_no = 'ORD-D'")).isEqualTo(1);
        assertThat(count(postbox.tables().outbox())).isEqualTo(1);
        assertThat(actions.get()).as("the rolled-back attempt and the one that committed").isEqualTo(2);
    }

    @Test
    final void windowE_twoRelaysAndALossyBroker_everyEventTakesEffectOnce() throws Exception {
        int n = 300;
        inTx(c -> {
            for (int i = 0; i < n; i++) {
                placeOrder(c, postbox, "ORD-E" + i);
            }
            return null;
        });
        Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        Publisher lossy = broker(r -> {
            int nth = deliveries.computeIfAbsent(r.eventNo(), k -> new AtomicInteger()).incrementAndGet();
            try {
                if (consume(r, () -> { }).duplicate()) {
                    duplicates.incrementAndGet();
                }
            } catch (Exception e) {
                return PublishResult.retry("consumer failed: " + e);
            }
            // every third event loses the acknowledgement of its first delivery
            return nth == 1 && Math.floorMod(r.eventNo().hashCode(), 3) == 0 ? PublishResult.retry("ack lost")
                    : PublishResult.published();
        });
        try (Relay a = postbox.relay(lossy).instanceId("relay-e1").batchSize(50).listenForNotifications(false)
                     .pollInterval(Duration.ofMillis(1), Duration.ofMillis(10))
                     .retryPolicy(RetryPolicy.fixed(List.of(Duration.ZERO))).build().start();
             Relay b = postbox.relay(lossy).instanceId("relay-e2").batchSize(50).listenForNotifications(false)
                     .pollInterval(Duration.ofMillis(1), Duration.ofMillis(10))
                     .retryPolicy(RetryPolicy.fixed(List.of(Duration.ZERO))).build().start()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 2") < n
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 2")).isEqualTo(n);
        int redelivered = (int) deliveries.values().stream().filter(d -> d.get() > 1).count();
        assertThat(redelivered).as("events delivered more than once").isGreaterThan(0);
        assertThat(duplicates.get()).isEqualTo(deliveries.values().stream().mapToInt(d -> d.get() - 1).sum());
        assertThat(count("stock_reservation")).as("one reservation per order").isEqualTo(n);
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(n);
    }
}
