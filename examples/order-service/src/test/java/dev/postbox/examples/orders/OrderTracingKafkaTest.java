package dev.postbox.examples.orders;

import dev.postbox.kafka.testing.KafkaCluster;
import dev.postbox.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 18's trace, through Spring Boot's own tracing (Micrometer Observation, Micrometer Tracing on its OpenTelemetry
 * bridge; the starter's {@code ObservationTracing} and its send-link handler in Boot's handler group): the HTTP request
 * that placed an order, the
 * outbox write's {@code create} span inside it, the relay's {@code send order.event} span linked to that, a real
 * (in-process KRaft) Kafka broker, and the {@code @PostboxListener} that reserved stock in a {@code process} span
 * parented to the creation context: all spans of the request's one trace, exported to an in-memory exporter.
 */
@ActiveProfiles({"postgres", "kafka"})
class OrderTracingKafkaTest extends OrderServiceE2eBase {

    static final TestDatabase DB = TestDatabase.postgres(null);
    static final KafkaCluster KAFKA = startKafka();
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> KEY = AttributeKey.stringKey("messaging.kafka.message.key");

    private static KafkaCluster startKafka() {
        KafkaCluster kafka = KafkaCluster.start();
        try {
            kafka.createTopicNamed("order.event", 2);
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic order.event", e);
        }
        return kafka;
    }

    @TestConfiguration
    static class InMemorySpans {
        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(SPANS);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        register(registry, DB);
        registry.add("postbox.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("order.demo.seed-orders", () -> "0");
        registry.add("management.tracing.sampling.probability", () -> "1.0");
    }

    @RegisterExtension
    static final BeforeAllCallback STOP_KAFKA_AT_END = context -> context.getRoot()
            .getStore(ExtensionContext.Namespace.create(OrderTracingKafkaTest.class))
            .put("kafka", (ExtensionContext.Store.CloseableResource) KAFKA::close);


    @org.springframework.beans.factory.annotation.Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @Override
    protected TestDatabase database() {
        return DB;
    }

    @Test
    void oneTraceRunsFromThePlacingRequestThroughKafkaToTheConsumerThatReservedStock() throws Exception {
        assertThat(postbox.tracing()).as("the starter traces through Boot's Micrometer Observation")
                .isInstanceOf(dev.postbox.micrometer.ObservationTracing.class);
        String orderNo = place("tracing-" + UUID.randomUUID(), "SKU-1", 1, "9.90");
        String eventNo = "ORDER_CREATED:" + orderNo;
        assertThat(await(Duration.ofSeconds(60), () -> process(eventNo) != null)).as("the consumer's span ended").isTrue();

        SpanData create = one("create", eventNo);
        SpanData process = process(eventNo);
        SpanData server = SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.SERVER && s.getSpanId().equals(create.getParentSpanId()))
                .findFirst().orElse(null);
        assertThat(server).as("the create span's parent is the HTTP request's server span").isNotNull();
        assertThat(server.getName()).containsIgnoringCase("post /orders");
        String traceId = server.getTraceId();
        assertThat(create.getTraceId()).isEqualTo(traceId);
        assertThat(count("SELECT COUNT(*) FROM biz_outbox_event WHERE event_no = ? AND trace_id = ?", eventNo, traceId))
                .as("the row's trace_id is the request's").isEqualTo(1);

        SpanData send = SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("send order.event")
                        && s.getLinks().stream().map(LinkData::getSpanContext)
                        .anyMatch(l -> l.getSpanId().equals(create.getSpanId())))
                .findFirst().orElse(null);
        assertThat(send).as("a send span linked to the event's creation context").isNotNull();
        assertThat(send.getAttributes().get(SYSTEM)).isEqualTo("kafka");
        assertThat(send.getAttributes().get(DESTINATION)).isEqualTo("order.event");

        assertThat(process.getTraceId()).as("the consumer that reserved stock is in the request's trace").isEqualTo(traceId);
        assertThat(process.getParentSpanId()).isEqualTo(create.getSpanId());
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(process.getName()).isEqualTo("process order.event");
        assertThat(process.getAttributes().get(SYSTEM)).isEqualTo("kafka");
        assertThat(process.getAttributes().get(KEY)).isEqualTo(orderNo);
        assertThat(count("SELECT COUNT(*) FROM t_stock_reservation WHERE order_no = ?", orderNo))
                .as("stock was reserved").isEqualTo(1);

        for (String observation : List.of("postbox.create", "postbox.send", "postbox.process")) {
            assertThat(meters.find(observation).tag("messaging.system", observation.equals("postbox.create") ? "postbox" : "kafka")
                    .timer()).as("Boot's meter handler times the %s observations", observation).isNotNull();
        }
    }

    private SpanData process(String eventNo) {
        List<SpanData> all = SPANS.getFinishedSpanItems();
        return all.stream().filter(s -> s.getName().startsWith("process ") && eventNo.equals(s.getAttributes().get(MESSAGE_ID)))
                .findFirst().orElse(null);
    }

    private SpanData one(String operation, String eventNo) {
        return SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith(operation + " ") && eventNo.equals(s.getAttributes().get(MESSAGE_ID)))
                .findFirst().orElseThrow(() -> new AssertionError("no " + operation + " span of " + eventNo + " among "
                        + SPANS.getFinishedSpanItems().stream().map(SpanData::getName).toList()));
    }
}
