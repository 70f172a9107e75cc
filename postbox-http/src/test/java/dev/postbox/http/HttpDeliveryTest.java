package dev.postbox.http;

import com.sun.net.httpserver.Headers;
import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Publisher, relay and receiver end to end over real HTTP into PostgreSQL. */
class HttpDeliveryTest extends WebhookFixture {

    @Test
    void everyEnvelopeFieldAndThePayloadArriveUnchanged() throws Exception {
        String payload = "{\"note\":\"Grüße, 世界 🎉\",\"amount\":19.90,\"tab\":\"\\t\"}";
        OutboxRecord sent = write(OutboxEvent.builder().eventNo("RT-1").aggregate("ORDER", "订单-42")
                .eventType("ORDER_PAID").eventVersion(3).channel("WEBHOOK").topic("order.event").payload(payload)
                .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .header("X-Tenant", "acme").header("x-note", "  café, ünïcode  ").header("x-tricky", "UTF-8''%41")
                .header("x-seq", "1").build());

        assertThat(publishOne(publisher().build(), sent)).isEqualTo(PublishResult.published());

        assertThat(handled).hasSize(1);
        Envelope got = handled.peek();
        Envelope expected = Envelope.of(sent);
        assertThat(got.eventNo()).isEqualTo("RT-1");
        assertThat(got.eventType()).isEqualTo("ORDER_PAID");
        assertThat(got.eventVersion()).isEqualTo(3);
        assertThat(got.aggregateType()).isEqualTo("ORDER");
        assertThat(got.aggregateId()).isEqualTo("订单-42");
        assertThat(got.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(got.traceparent()).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(got.source()).isEqualTo("test-service");
        assertThat(got.createTime()).isEqualTo(sent.createTime()).isEqualTo(START);
        Map<String, String> ownLowerCase = new LinkedHashMap<>();
        expected.headers().forEach((k, v) -> ownLowerCase.put(k.toLowerCase(java.util.Locale.ROOT), v));
        assertThat(got.headers()).as("own headers, names in lower case").isEqualTo(ownLowerCase)
                .containsEntry("x-note", "  café, ünïcode  ").containsEntry("x-tricky", "UTF-8''%41");
        assertThat(got.payload()).isEqualTo(payload);
        assertThat(got.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(sent.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8));

        Headers raw = requests.peek();
        assertThat(raw.getFirst("Idempotency-Key")).isEqualTo("RT-1");
        assertThat(raw.getFirst("Content-Type")).isEqualTo("application/json; charset=utf-8");
        assertThat(raw.getFirst("Postbox-Signature")).matches("t=\\d+,v1=[0-9a-f]{64}");
        assertThat(raw.getFirst("Postbox-Aggregate-Id")).as("non-ASCII as RFC 8187").startsWith("UTF-8''");
        assertThat(raw.getFirst("Traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    }

    @Test
    void manyEventsOverAHundredAggregatesArriveOnceAndInOrder() throws Exception {
        int n = dev.postbox.testing.TestScale.events(10_000);
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        writeEvents(live, n, 100, 5);
        long started = System.nanoTime();
        try (Relay relay = live.relay(publisher().build()).instanceId("r1").batchSize(500).start()) {
            awaitDelivered(n, Duration.ofMinutes(2));
        }
        System.out.printf("[http] relay delivered %,d events over 100 aggregates in %d ms%n", n,
                Duration.ofNanos(System.nanoTime() - started).toMillis());
        assertThat(count("delivered")).isEqualTo(n);
        assertThat(queryLong("SELECT COUNT(DISTINCT event_no) FROM delivered")).isEqualTo(n);
        assertThat(orderViolations()).isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(n);
    }

    @Test
    void aRepostedEventIsAbsorbedByTheInbox() throws Exception {
        OutboxRecord r = write(event("DUP-1", "A1").header("x-seq", "1").build());
        HttpPublisher publisher = publisher().build();

        assertThat(publishOne(publisher, r)).isEqualTo(PublishResult.published());
        assertThat(publishOne(publisher, r)).as("HTTP has no broker-side dedup: 2xx again").isEqualTo(PublishResult.published());

        assertThat(requests).as("both posts reached the endpoint").hasSize(2);
        assertThat(handled).as("the work ran once").hasSize(1);
        assertThat(count("delivered")).isEqualTo(1);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().consumeLog() + " WHERE event_no = 'DUP-1'")).isEqualTo(1);
    }

    @Test
    void anEndpointDownFor20SecondsLosesNothingAndKeepsTheOrder() throws Exception {
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        writeEvents(live, 1_000, 20, 1000);
        List<String> reasons = java.util.Collections.synchronizedList(new ArrayList<>());
        try (Relay relay = live.relay(publisher().requestTimeout(Duration.ofSeconds(2)).build()).instanceId("r1")
                .batchSize(500).retryPolicy(RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(1)))
                .listener(new dev.postbox.relay.RelayListener() {
                    @Override
                    public void failed(OutboxRecord event, String reason, java.time.Instant nextRetry) {
                        reasons.add(reason);
                    }
                }).start()) {
            awaitDelivered(100, Duration.ofSeconds(30));
            server.stop();
            long downAt = count("delivered");
            long stoppedAt = System.nanoTime();
            Thread.sleep(20_000);
            long duringOutage = count("delivered");
            assertThat(duringOutage).as("nothing can arrive while the endpoint is down").isLessThanOrEqualTo(downAt + 20);
            assertThat(duringOutage).as("stopped before the end").isLessThan(1_000);
            assertThat(countStatus(OutboxStatus.FAILED)).as("heads wait for their retry").isPositive();
            server.startAgain();
            awaitDelivered(1_000, Duration.ofSeconds(60));
            System.out.printf("[http] outage: %d delivered before the stop, all 1,000 %d ms after it%n", downAt,
                    Duration.ofNanos(System.nanoTime() - stoppedAt).toMillis());
        }
        assertThat(count("delivered")).isEqualTo(1_000);
        assertThat(queryLong("SELECT COUNT(DISTINCT event_no) FROM delivered")).isEqualTo(1_000);
        assertThat(orderViolations()).isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(1_000);
        assertThat(countStatus(OutboxStatus.DEAD)).isZero();
        assertThat(reasons).isNotEmpty().anyMatch(r -> r.contains("endpoint 'WEBHOOK'"));
        System.out.printf("[http] outage: %d failed attempts, e.g. %s%n", reasons.size(), reasons.get(0));
    }

    private void writeEvents(Postbox target, int n, int aggregates, int maxRetries) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(event("E-" + i, "A" + (i % aggregates)).header("x-seq", Integer.toString(i)).maxRetries(maxRetries).build());
            if (batch.size() == 1000 || i == n - 1) {
                List<OutboxEvent> chunk = List.copyOf(batch);
                inTx(c -> target.outbox().writeAll(c, chunk));
                batch.clear();
            }
        }
    }

    private void awaitDelivered(long n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count("delivered") < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private long countStatus(OutboxStatus status) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }
}
