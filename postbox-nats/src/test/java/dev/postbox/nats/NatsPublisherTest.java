package dev.postbox.nats;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The publisher and the subscriber against the real JetStream server and PostgreSQL. */
class NatsPublisherTest extends NatsTestBase {

    private NatsPublisher publisher() {
        return NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix(nats.prefix).build();
    }

    private static PublishResult publishOne(NatsPublisher p, OutboxRecord r) throws Exception {
        return p.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private OutboxRecord fullEvent(String eventNo) throws Exception {
        return write(OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", "Bestellung-Ä-7").eventType("ORDER_PAID")
                .eventVersion(3).channel("NATS").topic("order.paid").routingKey("eu")
                .payload("{\"seq\":1,\"text\":\"Grüße, 東京 👋\"}")
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .header("tenant", "Zürich").header("plain", "abc").header("blank", "")
                .traceId("trace-42").build());
    }

    @Test
    void everyEnvelopeFieldAndThePayloadBytesRoundTrip() throws Exception {
        OutboxRecord record = fullEvent(nats.id + "-full");
        List<Envelope> seen = new CopyOnWriteArrayList<>();
        EnvelopeConsumer capture = new EnvelopeConsumer(pool, postbox.inbox(), "capture", (c, e) -> seen.add(e));
        try (NatsPublisher p = publisher()) {
            assertThat(publishOne(p, record)).isEqualTo(PublishResult.published());
        }
        MessageInfo raw = nats.jsm.getMessage(nats.stream, 1);
        assertThat(raw.getSubject()).isEqualTo(nats.prefix + "order.paid");
        assertThat(raw.getData()).isEqualTo(record.payload().getBytes(StandardCharsets.UTF_8));
        assertThat(raw.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo(record.eventNo());
        assertThat(raw.getHeaders().getFirst("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(raw.getHeaders().getFirst("postbox-event-type")).isEqualTo("ORDER_PAID");
        assertThat(raw.getHeaders().getFirst("tenant")).as("non-ASCII as an encoded word").startsWith("=?UTF-8?B?");

        NatsSubscriber.Poll poll = NatsSubscriber.builder(nats.connection, capture).stream(nats.stream).build().pollOnce();
        assertThat(poll.ran()).isEqualTo(1);
        Envelope expected = Envelope.of(record);
        assertThat(seen).containsExactly(expected);
        Envelope e = seen.get(0);
        assertThat(e.traceparent()).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(e.headers()).isEqualTo(java.util.Map.of("tenant", "Zürich", "plain", "abc", "blank", ""));
        assertThat(e.createTime()).isEqualTo(record.createTime());
        assertThat(e.source()).isEqualTo("test-service");
        assertThat(e.traceId()).isEqualTo("trace-42");
        assertThat(e.eventVersion()).isEqualTo(3);
        assertThat(e.payload().getBytes(StandardCharsets.UTF_8)).isEqualTo(record.payload().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRepublishedEventIsDroppedByJetStreamAndARedeliveryIsAbsorbedByTheInbox() throws Exception {
        OutboxRecord record = fullEvent(nats.id + "-twice");
        try (NatsPublisher p = publisher()) {
            assertThat(publishOne(p, record)).isEqualTo(PublishResult.published());
            assertThat(publishOne(p, record)).as("a duplicate ack is a success").isEqualTo(PublishResult.published());
        }
        assertThat(nats.messages()).as("JetStream kept one copy").isEqualTo(1);
        PublishAck again = nats.connection.jetStream().publish(NatsMessage.builder().subject(nats.prefix + "order.paid")
                .headers(NatsHeaders.of(Envelope.of(record))).data(record.payload().getBytes(StandardCharsets.UTF_8)).build());
        assertThat(again.isDuplicate()).as("same Nats-Msg-Id inside the window").isTrue();

        // past the duplicate window (or from another stream), the same event arrives a second time
        Headers otherId = NatsHeaders.of(Envelope.of(record));
        otherId.put("Nats-Msg-Id", record.eventNo() + "-later");
        nats.connection.jetStream().publish(NatsMessage.builder().subject(nats.prefix + "order.paid").headers(otherId)
                .data(record.payload().getBytes(StandardCharsets.UTF_8)).build());
        assertThat(nats.messages()).isEqualTo(2);

        NatsSubscriber s = NatsSubscriber.builder(nats.connection, recorder("dedup")).stream(nats.stream).build();
        NatsSubscriber.Poll poll = s.pollOnce();
        assertThat(poll.fetched()).isEqualTo(2);
        assertThat(poll.ran()).isEqualTo(1);
        assertThat(poll.duplicates()).isEqualTo(1);
        assertThat(queryLong("SELECT COUNT(*) FROM app_received")).as("the work ran once").isEqualTo(1);
        assertThat(s.pollOnce().fetched()).as("both acknowledged").isZero();
    }

    @Test
    void aFailedHandlerIsRedeliveredAndRunsOnceWhenItSucceeds() throws Exception {
        writeEvents(1, 1, "order.changed", 5);
        try (NatsPublisher p = publisher()) {
            assertThat(publishOne(p, postbox.queries().outbox().byEventNo(nats.id + "-0").orElseThrow()))
                    .isEqualTo(PublishResult.published());
        }
        AtomicInteger attempts = new AtomicInteger();
        EnvelopeConsumer flaky = new EnvelopeConsumer(pool, postbox.inbox(), "flaky", (c, e) -> {
            try (var ps = c.prepareStatement("INSERT INTO app_received (event_no, aggregate_id, seq) VALUES (?, ?, 0)")) {
                ps.setString(1, e.eventNo());
                ps.setString(2, e.aggregateId());
                ps.executeUpdate();
            }
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("stock service down");
            }
        });
        NatsSubscriber s = NatsSubscriber.builder(nats.connection, flaky).stream(nats.stream)
                .nakDelay(java.time.Duration.ofMillis(1500)).build();
        NatsSubscriber.Poll first = s.pollOnce(); // returns before the nak delay is over
        assertThat(first.failed()).isEqualTo(1);
        assertThat(first.ran()).isZero();
        assertThat(queryLong("SELECT COUNT(*) FROM app_received")).as("rolled back").isZero();
        int ran = 0;
        for (int i = 0; i < 5 && ran == 0; i++) {
            ran = s.pollOnce().ran();
        }
        assertThat(ran).as("redelivered after the nak delay").isEqualTo(1);
        assertThat(attempts).hasValue(2);
        assertThat(queryLong("SELECT COUNT(*) FROM app_received")).isEqualTo(1);
        assertThat(s.pollOnce().fetched()).isZero();
    }

    @Test
    void aMessageWithoutTheEnvelopeIsTerminatedNotRedelivered() throws Exception {
        Headers partial = new Headers().put("postbox-event-no", nats.id + "-x").put("postbox-event-type", "X")
                .put("postbox-event-version", "1").put("postbox-aggregate-type", "ORDER");
        nats.connection.jetStream().publish(NatsMessage.builder().subject(nats.prefix + "foreign").headers(partial)
                .data("{}".getBytes(StandardCharsets.UTF_8)).build());
        nats.connection.jetStream().publish(nats.prefix + "foreign", "no headers at all".getBytes(StandardCharsets.UTF_8));
        NatsSubscriber s = NatsSubscriber.builder(nats.connection, recorder("strict")).stream(nats.stream)
                .ackWait(java.time.Duration.ofSeconds(1)).build();
        NatsSubscriber.Poll poll = s.pollOnce();
        assertThat(poll.fetched()).isEqualTo(2);
        assertThat(poll.rejected()).isEqualTo(2);
        Thread.sleep(1500); // past the ack wait: an unacknowledged message would be back
        assertThat(s.pollOnce().fetched()).isZero();
        assertThat(nats.jsm.getConsumerInfo(nats.stream, "strict").getNumAckPending()).isZero();
    }

    @Test
    void aTopicNoStreamCapturesIsDeadWithTheReason() throws Exception {
        OutboxRecord lost = write(OutboxEvent.builder().eventNo(nats.id + "-lost").aggregate("ORDER", "1")
                .eventType("ORDER_PAID").channel("NATS").topic("order.paid").payload("{}").build());
        OutboxRecord wild = write(OutboxEvent.builder().eventNo(nats.id + "-wild").aggregate("ORDER", "2")
                .eventType("ORDER_PAID").channel("NATS").topic("order.*").payload("{}").build());
        try (NatsPublisher p = NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix("nostream" + nats.id + ".").build()) {
            PublishResult r = publishOne(p, lost);
            assertThat(r.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(r.reason()).contains("no JetStream stream captures subject 'nostream" + nats.id + ".order.paid'")
                    .contains("503");
            PublishResult w = publishOne(p, wild);
            assertThat(w.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(w.reason()).contains("wildcard '*'");
        }
    }

    @Test
    void aMessageAboveTheServersMaxPayloadIsDead() throws Exception {
        long max = nats.connection.getServerInfo().getMaxPayload();
        assertThat(max).as("server max_payload; this test needs it at most the outbox's 1 MiB").isLessThanOrEqualTo(1024 * 1024);
        String payload = "{\"x\":\"" + "a".repeat((int) max - 8) + "\"}"; // the body alone fits, body + headers does not
        OutboxRecord big = write(OutboxEvent.builder().eventNo(nats.id + "-big").aggregate("ORDER", "1")
                .eventType("ORDER_PAID").channel("NATS").topic("order.paid").payload(payload).build());
        try (NatsPublisher p = publisher()) {
            PublishResult r = publishOne(p, big);
            assertThat(r.kind()).isEqualTo(PublishResult.Kind.DEAD);
            assertThat(r.reason()).contains("payload size exceed");
        }
        assertThat(nats.messages()).isZero();
    }
}
