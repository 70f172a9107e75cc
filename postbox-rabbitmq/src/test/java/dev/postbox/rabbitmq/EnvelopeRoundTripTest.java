package dev.postbox.rabbitmq;

import com.rabbitmq.client.GetResponse;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** (a) Every envelope field, traceparent and the event's own headers, and the payload byte for byte. */
class EnvelopeRoundTripTest extends RabbitTestSupport {

    private static final String PAYLOAD = "{\"note\":\"Grüße aus Köln, 東京へ 🚚\",\"n\":1}";
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private OutboxRecord writeOne(String exchange) throws Exception {
        write(List.of(OutboxEvent.builder().eventNo("ORDER_CREATED:Ö-1").aggregate("ORDER", "Ö-1")
                .eventType("ORDER_CREATED").eventVersion(3).channel("MQ").topic(exchange).routingKey("order.created")
                .payload(PAYLOAD).header("tenantId", "t-1").header("note", "überall ✓").header("traceparent", TRACEPARENT)
                .traceId("trace-42").build()));
        return record("ORDER_CREATED:Ö-1");
    }

    @Test
    void everyEnvelopeFieldAndThePayloadArriveInTheAmqpPropertiesAndBody() throws Exception {
        String exchange = topicExchange("roundtrip");
        String queue = queue("roundtrip", exchange, "order.#", null);
        OutboxRecord r = writeOne(exchange);
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build()) {
            assertThat(publisher.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isEqualTo(PublishResult.published());
        }
        GetResponse got = admin.basicGet(queue, true);
        assertThat(got).as("delivered").isNotNull();
        assertThat(got.getEnvelope().getExchange()).isEqualTo(exchange);
        assertThat(got.getEnvelope().getRoutingKey()).isEqualTo("order.created");
        assertThat(got.getBody()).isEqualTo(PAYLOAD.getBytes(StandardCharsets.UTF_8));

        var p = got.getProps();
        assertThat(p.getMessageId()).isEqualTo("ORDER_CREATED:Ö-1");
        assertThat(p.getType()).isEqualTo("ORDER_CREATED");
        assertThat(p.getAppId()).isEqualTo("order-service");
        assertThat(p.getCorrelationId()).isEqualTo("trace-42");
        assertThat(p.getDeliveryMode()).isEqualTo(2);
        assertThat(p.getContentType()).isEqualTo("application/json");
        assertThat(p.getTimestamp().toInstant().getEpochSecond()).isEqualTo(r.createTime().getEpochSecond());
        Map<String, String> headers = new java.util.HashMap<>();
        p.getHeaders().forEach((k, v) -> headers.put(k, v.toString()));
        assertThat(headers).containsEntry(Envelope.EVENT_NO, "ORDER_CREATED:Ö-1")
                .containsEntry(Envelope.EVENT_TYPE, "ORDER_CREATED")
                .containsEntry(Envelope.EVENT_VERSION, "3")
                .containsEntry(Envelope.AGGREGATE_TYPE, "ORDER")
                .containsEntry(Envelope.AGGREGATE_ID, "Ö-1")
                .containsEntry(Envelope.TRACE_ID, "trace-42")
                .containsEntry(Envelope.SOURCE, "order-service")
                .containsEntry(Envelope.CREATE_TIME, r.createTime().toString())
                .containsEntry(Envelope.TRACEPARENT, TRACEPARENT)
                .containsEntry("tenantId", "t-1")
                .containsEntry("note", "überall ✓")
                .hasSize(11);

        Envelope read = AmqpEnvelopes.envelope(p, got.getBody());
        assertThat(read).isEqualTo(Envelope.of(r));
        assertThat(read.traceparent()).isEqualTo(TRACEPARENT);
        assertThat(read.headers()).containsExactlyInAnyOrderEntriesOf(Map.of("tenantId", "t-1", "note", "überall ✓"));
        assertThat(read.createTime()).isEqualTo(r.createTime());
    }

    @Test
    void theConsumerHandsTheSameEnvelopeToItsHandler() throws Exception {
        String exchange = topicExchange("roundtrip-consumer");
        String queue = queue("roundtrip-consumer", exchange, "#", null);
        OutboxRecord r = writeOne(exchange);
        AtomicReference<Envelope> seen = new AtomicReference<>();
        EnvelopeConsumer capture = new EnvelopeConsumer(ds, postbox.inbox(), "capture", (c, e) -> seen.set(e));
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, capture).start()) {
            publisher.publish(List.of(r)).get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
            await("the delivery", Duration.ofSeconds(10), () -> consumer.acknowledged() == 1);
        }
        assertThat(seen.get()).isEqualTo(Envelope.of(r));
        assertThat(seen.get().payload().getBytes(StandardCharsets.UTF_8)).isEqualTo(PAYLOAD.getBytes(StandardCharsets.UTF_8));
        assertThat(messageCount(queue)).isZero();
    }
}
