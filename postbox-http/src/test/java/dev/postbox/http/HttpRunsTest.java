package dev.postbox.http;

import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole batches through {@link HttpPublisher} over real HTTP: in one call an aggregate's events are sent
 * one after the other (the next only after the previous one's 2xx) while aggregates go in parallel; a
 * 500 for one event sends nothing more of its aggregate in that call, and the rest goes out in order after
 * its retry; other aggregates are unaffected.
 */
class HttpRunsTest extends WebhookFixture {

    /** Event numbers in arrival order; requests of one aggregate that overlapped; peak concurrency. */
    private final ConcurrentLinkedQueue<String> arrivals = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
    private final AtomicInteger concurrent = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final Map<String, String> busy = new ConcurrentHashMap<>();
    private final Set<String> failOnce = ConcurrentHashMap.newKeySet();

    /** Answers 204 after a few milliseconds, 500 once for the events in {@link #failOnce}. */
    private void slowEndpoint() {
        arrivals.clear(); // one instance serves every test of the class
        overlaps.clear();
        peak.set(0);
        failOnce.clear();
        server.handler = exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                String no = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                String aggregate = exchange.getRequestHeaders().getFirst("Postbox-Aggregate-Id");
                peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                String other = busy.putIfAbsent(aggregate, no);
                if (other != null) {
                    overlaps.add(no + " while " + other + " was unanswered");
                }
                try {
                    Thread.sleep(3);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                arrivals.add(no);
                busy.remove(aggregate, no);
                concurrent.decrementAndGet();
                exchange.sendResponseHeaders(failOnce.remove(no) ? 500 : 204, -1);
            }
        };
    }

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

    private void writeRuns(int n, int aggregates) throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event("H-" + i, "A" + (i % aggregates)).build());
        }
        inTx(c -> postbox.outbox().writeAll(c, events));
    }

    /** Arrivals per aggregate (aggregate = i % aggregates of event H-i), as event indexes. */
    private Map<String, List<Integer>> arrivalsByAggregate(int aggregates) {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (String no : arrivals) {
            int i = Integer.parseInt(no.substring(2));
            out.computeIfAbsent("A" + (i % aggregates), k -> new ArrayList<>()).add(i);
        }
        return out;
    }

    @Test
    void anAggregatesRunInOneCallIsSentOneAfterTheOtherWhileAggregatesGoInParallel() throws Exception {
        slowEndpoint();
        writeRuns(200, 10);
        AtomicInteger calls = new AtomicInteger();
        try (Relay relay = postbox.relay(counting(publisher().build(), calls)).instanceId("r-runs").batchSize(500).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).isEqualTo(200);
            assertThat(cycle.published()).isEqualTo(200);
        }
        assertThat(calls.get()).as("ten runs of 20 in one call, not 20 waves").isEqualTo(1);
        assertThat(overlaps).as("no request of an aggregate before the previous one was answered").isEmpty();
        assertThat(peak.get()).as("aggregates in parallel").isGreaterThan(1);
        Map<String, List<Integer>> byAggregate = arrivalsByAggregate(10);
        assertThat(byAggregate).hasSize(10);
        byAggregate.forEach((a, seq) -> assertThat(seq).as(a).hasSize(20).isSorted().doesNotHaveDuplicates());
    }

    @Test
    void aServerErrorForOneEventSendsNothingMoreOfItsAggregateAndTheRestFollowsItsRetryInOrder() throws Exception {
        slowEndpoint();
        writeRuns(40, 4); // A1 holds H-1, H-5, H-9, ...
        failOnce.add("H-9");
        try (Relay relay = postbox.relay(publisher().build()).instanceId("r-500").batchSize(500).build()) {
            Cycle first = relay.runOnce();
            assertThat(first.claimed()).isEqualTo(40);
            assertThat(first.failed()).isEqualTo(1);
            assertThat(first.published()).as("A1's H-1 and H-5, and the other aggregates' 30").isEqualTo(32);
            assertThat(arrivalsByAggregate(4).get("A1")).as("nothing of A1 sent after the 500").containsExactly(1, 5, 9);
            OutboxRecord held = postbox.queries().outbox().byEventNo("H-13").orElseThrow();
            assertThat(held.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(held.retryCount()).as("held, not an attempt").isZero();
            assertThat(postbox.queries().outbox().byEventNo("H-9").orElseThrow().status()).isEqualTo(OutboxStatus.FAILED);
            for (String a : List.of("A0", "A2", "A3")) {
                assertThat(arrivalsByAggregate(4).get(a)).as(a + " unaffected").hasSize(10).isSorted();
            }

            clock.advance(RetryPolicy.DEFAULT_CAP);
            Cycle next = relay.runOnce();
            assertThat(next.published()).isEqualTo(8);
        }
        assertThat(arrivalsByAggregate(4).get("A1")).as("H-9 again, then the rest in order, each once")
                .containsExactly(1, 5, 9, 9, 13, 17, 21, 25, 29, 33, 37);
        assertThat(overlaps).isEmpty();
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = "
                + OutboxStatus.PUBLISHED.code())).isEqualTo(40);
    }
}
