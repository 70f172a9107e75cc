package dev.postbox.rabbitmq;

import com.rabbitmq.client.GetResponse;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole batches through {@link RabbitPublisher}'s one order lane (its channel) against the local broker:
 * runs of one aggregate go in one call and arrive in order; an event that fails holds the rest of its
 * aggregate's run (not sent when the failure is known first, not believed when the broker returned it
 * while confirming the later ones: which of the two happens is the broker's timing), which goes out in
 * order once the failed one is resolved.
 */
class RabbitRunsTest extends RabbitTestSupport {

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

    /** Takes every message of {@code queue}: the payloads' n per aggregate, in queue order. */
    private Map<String, List<Integer>> take(String queue) throws Exception {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (GetResponse m = admin.basicGet(queue, true); m != null; m = admin.basicGet(queue, true)) {
            String payload = new String(m.getBody(), StandardCharsets.UTF_8);
            String aggregate = String.valueOf(m.getProps().getHeaders().get("postbox-aggregate-id"));
            out.computeIfAbsent(aggregate, k -> new ArrayList<>())
                    .add(Integer.parseInt(payload.substring(payload.indexOf(':') + 1, payload.indexOf('}')).trim()));
        }
        return out;
    }

    private void awaitMessages(String queue, int n) {
        await(n + " messages in " + queue, java.time.Duration.ofSeconds(10), () -> {
            try {
                return messageCount(queue) >= n;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void aBatchOfRunsGoesInOneCallAndArrivesInOrderPerAggregate() throws Exception {
        String exchange = topicExchange("runs");
        String queue = queue("runs", exchange, "#", null);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(event("R-" + i, "A" + (i % 20), i, exchange, "order.changed").build());
        }
        write(events);
        AtomicInteger calls = new AtomicInteger();
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(counting(publisher, calls)).instanceId("r-runs").batchSize(500).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).isEqualTo(500);
            assertThat(cycle.published()).isEqualTo(500);
        }
        assertThat(calls.get()).as("20 runs of 25 events in one call, not 25 waves").isEqualTo(1);
        awaitMessages(queue, 500);
        Map<String, List<Integer>> got = take(queue);
        assertThat(got).hasSize(20);
        got.forEach((aggregate, ns) -> assertThat(ns).as(aggregate).hasSize(25).isSorted().doesNotHaveDuplicates());
    }

    @Test
    void anEventThatCannotBeSentHoldsTheRestOfItsRunUnsentUntilItIsResolved() throws Exception {
        String exchange = topicExchange("unsent");
        String queue = queue("unsent", exchange, "#", null);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            events.add(event("S-" + i, "S", i, i == 2 ? null : exchange, "order.changed").build()); // S-2: no exchange
            events.add(event("T-" + i, "T", i, exchange, "order.changed").build());
        }
        write(events);
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build(); // no default exchange
             Relay relay = postbox.relay(publisher).instanceId("r-unsent").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.published()).as("T's six and S's first two").isEqualTo(8);
            assertThat(record("S-2").status()).isEqualTo(OutboxStatus.DEAD);
            OutboxRecord held = record("S-3");
            assertThat(held.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(held.retryCount()).as("held, not an attempt").isZero();
            awaitMessages(queue, 8);
            Map<String, List<Integer>> before = take(queue);
            assertThat(before.get("S")).as("nothing of S after the unsendable event was written").containsExactly(0, 1);
            assertThat(before.get("T")).containsExactly(0, 1, 2, 3, 4, 5);

            assertThat(postbox.admin().cancel("S-2", "test", "no exchange")).isTrue();
            assertThat(relay.runOnce().published()).isEqualTo(3);
        }
        awaitMessages(queue, 3);
        assertThat(take(queue)).containsExactly(Map.entry("S", List.of(3, 4, 5)));
    }

    @Test
    void anEventTheBrokerReturnsHoldsTheLaterOnesItConfirmedAndTheyGoOutAgainInOrder() throws Exception {
        String exchange = topicExchange("returned");
        String queue = queue("returned", exchange, "order.*", null);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            events.add(event("X-" + i, "X", i, exchange, i == 2 ? "nobody.listens" : "order.changed").build());
            events.add(event("Y-" + i, "Y", i, exchange, "order.changed").build());
        }
        write(events);
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(publisher).instanceId("r-returned").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.published()).as("Y's six and X's first two; X-3.. not believed").isEqualTo(8);
            assertThat(record("X-2").status()).isEqualTo(OutboxStatus.DEAD);
            assertThat(record("X-2").failReason()).contains("NO_ROUTE");
            for (int i = 3; i < 6; i++) {
                assertThat(record("X-" + i).status()).as("X-" + i).isEqualTo(OutboxStatus.PENDING);
                assertThat(record("X-" + i).retryCount()).as("X-" + i + " held, not an attempt").isZero();
            }
            // every outcome is known once the cycle ends (confirms come after the queue took a message), so
            // the queue holds all that was routed: X-3.. were either routed behind the returned one (written
            // before its return arrived, then not believed) or not written at all (the return came first)
            awaitMessages(queue, 8);
            Map<String, List<Integer>> before = take(queue);
            assertThat(before.get("X")).as("X-3.. routed behind the returned one or not written")
                    .isIn(List.of(0, 1), List.of(0, 1, 3, 4, 5));
            assertThat(before.get("Y")).containsExactly(0, 1, 2, 3, 4, 5);

            assertThat(relay.runOnce().claimed()).as("X waits behind its dead event").isZero();
            assertThat(postbox.admin().cancel("X-2", "test", "unroutable")).isTrue();
            assertThat(relay.runOnce().published()).isEqualTo(3);
        }
        awaitMessages(queue, 3);
        assertThat(take(queue)).as("sent again, in order").containsExactly(Map.entry("X", List.of(3, 4, 5)));
    }
}
