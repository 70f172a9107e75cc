package dev.postbox.micrometer;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ObservationTracing} on a Micrometer {@link ObservationRegistry} wired as Spring Boot wires it (Micrometer
 * Tracing's handlers, {@link PostboxSendTracingHandler} ahead of the sender handler, the meter handler), on both
 * bridges: OpenTelemetry (spans to the SDK's in-memory exporter) and Brave (spans to a collecting handler, W3C
 * propagation). The create span is the child of the current observation and its context lands in the carrier; the send
 * span links to each creation context; a process span is the child of the context it is handed; timers are recorded.
 */
class ObservationTracingTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private OpenTelemetrySdk sdk;
    private Tracing braveTracing;

    @AfterEach
    void close() {
        if (sdk != null) {
            sdk.close();
        }
        if (braveTracing != null) {
            braveTracing.close();
        }
    }

    @Test
    void onTheOpenTelemetryBridgeCreateIsTheRequestsChildSendLinksAndProcessIsCreatesChild() {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        ObservationRegistry registry = otelRegistry(spans);
        ObservationTracing tracing = new ObservationTracing(registry);

        Flow flow = flow(registry, tracing);

        SpanData request = span(spans, "request");
        SpanData create = span(spans, "create orders");
        assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(create.getParentSpanId()).as("create is the request's child").isEqualTo(request.getSpanId());
        assertThat(create.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(flow.createIds).containsExactly(create.getTraceId(), create.getSpanId());
        assertThat(flow.headers.get("traceparent")).as("the stored context is the create span's")
                .startsWith("00-" + create.getTraceId() + "-" + create.getSpanId() + "-");
        assertThat(create.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))).isEqualTo("E-1");
        assertThat(create.getAttributes().get(AttributeKey.stringKey("messaging.system"))).isEqualTo("postbox");

        SpanData send = span(spans, "send orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(send.getParentSpanContext().isValid()).as("a send span starts its own trace").isFalse();
        assertThat(send.getLinks()).extracting(LinkData::getSpanContext)
                .anySatisfy(l -> assertThat(l.getSpanId()).isEqualTo(create.getSpanId()))
                .anySatisfy(l -> assertThat(l.getSpanId()).isEqualTo("00f067aa0ba902b7"));
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.system"))).isEqualTo("kafka");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.batch.message_count"))).isEqualTo("2");

        SpanData process = span(spans, "process orders");
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(process.getParentSpanId()).as("process is create's child").isEqualTo(create.getSpanId());
        assertThat(process.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(process.getStatus().getStatusCode()).as("a failed delivery is an error span")
                .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
        assertThat(flow.processIds).containsExactly(process.getTraceId(), process.getSpanId());

        assertTimers();
    }

    @Test
    void onTheBraveBridgeTheSameSpansAreMadeWithW3cContextsAndLinksAsTags() {
        List<MutableSpan> finished = new CopyOnWriteArrayList<>();
        brave.propagation.CurrentTraceContext braveCurrent = ThreadLocalCurrentTraceContext.create();
        BraveBaggageManager baggage = new BraveBaggageManager();
        braveTracing = Tracing.newBuilder().currentTraceContext(braveCurrent).sampler(Sampler.ALWAYS_SAMPLE)
                .traceId128Bit(true).propagationFactory(new W3CPropagation(baggage, List.of()))
                .addSpanHandler(new SpanHandler() {
                    @Override
                    public boolean end(brave.propagation.TraceContext context, MutableSpan span, Cause cause) {
                        finished.add(span);
                        return true;
                    }
                }).build();
        Tracer tracer = new BraveTracer(braveTracing.tracer(), new BraveCurrentTraceContext(braveCurrent), baggage);
        ObservationRegistry registry = registry(tracer, new BravePropagator(braveTracing));
        ObservationTracing tracing = new ObservationTracing(registry);

        Flow flow = flow(registry, tracing);

        MutableSpan request = brave(finished, "request");
        MutableSpan create = brave(finished, "create orders");
        assertThat(create.kind()).isEqualTo(brave.Span.Kind.PRODUCER);
        assertThat(create.parentId()).isEqualTo(request.id());
        assertThat(flow.headers.get("traceparent")).isEqualTo("00-" + create.traceId() + "-" + create.id() + "-01");
        assertThat(flow.createIds).containsExactly(create.traceId(), create.id());

        MutableSpan send = brave(finished, "send orders");
        assertThat(send.parentId()).isNull();
        assertThat(send.tags()).as("Brave has no links: the bridge writes them as tags")
                .containsValue(create.id()).containsValue("00f067aa0ba902b7");

        MutableSpan process = brave(finished, "process orders");
        assertThat(process.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
        assertThat(process.parentId()).isEqualTo(create.id());
        assertThat(process.traceId()).isEqualTo(request.traceId());
        assertThat(process.error()).isNotNull();

        assertTimers();
    }

    @Test
    void aRegistryThatOnlyMetersTimesTheWorkButInjectsAndStoresNothing() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        TraceSpan create = new ObservationTracing(registry).start(SpanRequest.create("orders", "E-1", "O-1", Map.of()));
        Map<String, String> headers = new HashMap<>();
        create.inject(headers);
        create.end(null);
        assertThat(headers).isEmpty();
        assertThat(create.traceId()).isNull();
        assertThat(meters.find("postbox.create").timer()).isNotNull();
        assertThat(new ObservationTracing(ObservationRegistry.NOOP).start(SpanRequest.create("orders", "E-1", null,
                Map.of()))).as("a no-op registry costs nothing").isSameAs(TraceSpan.NOOP);
    }

    @Test
    void aDisabledObservationPrefixTracesNothing() {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        ObservationRegistry registry = otelRegistry(spans);
        registry.observationConfig().observationPredicate((name, context) -> !name.startsWith("postbox."));
        TraceSpan create = new ObservationTracing(registry).start(SpanRequest.create("orders", "E-1", null, Map.of()));
        Map<String, String> headers = new HashMap<>();
        create.inject(headers);
        create.end(null);
        assertThat(headers).isEmpty();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
        assertThat(meters.getMeters()).isEmpty();
    }

    /** An SDK exporting to {@code spans}, W3C propagation, Micrometer Tracing's OpenTelemetry bridge on it. */
    private ObservationRegistry otelRegistry(InMemorySpanExporter spans) {
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        Tracer tracer = new OtelTracer(otel, current, event -> { }, new OtelBaggageManager(current, List.of(), List.of()));
        return registry(tracer, new OtelPropagator(sdk.getPropagators(), otel));
    }

    /** Observations as Spring Boot registers them: one first-matching tracing group, then the meter handler. */
    private ObservationRegistry registry(Tracer tracer, Propagator propagator) {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig()
                .observationHandler(new FirstMatchingCompositeObservationHandler(
                        new PostboxSendTracingHandler(tracer, propagator),
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)))
                .observationHandler(new DefaultMeterObservationHandler(meters));
        return registry;
    }

    private record Flow(Map<String, String> headers, List<String> createIds, List<String> processIds) {
    }

    /**
     * A request observation; in it the write's create span, whose context goes into the headers; then, on no
     * observation, a send span linked to it and to another event's context; then a process span handed the headers,
     * failing.
     */
    private static Flow flow(ObservationRegistry registry, ObservationTracing tracing) {
        Map<String, String> headers = new HashMap<>();
        List<String> createIds = new java.util.ArrayList<>();
        Observation request = Observation.start("request", registry);
        try (Observation.Scope ignored = request.openScope()) {
            TraceSpan create = tracing.start(SpanRequest.create("orders", "E-1", "O-1", Map.of("postbox.event.type", "ORDER_CREATED")));
            create.inject(headers);
            createIds.add(create.traceId());
            createIds.add(create.spanId());
            create.end(null);
        }
        request.stop();

        Map<String, String> other = Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        TraceSpan send = tracing.start(SpanRequest.send("kafka", "orders", null, null, List.of(headers, other),
                Collections.emptyMap()));
        try (TraceSpan.Scope ignored = send.makeCurrent()) {
            assertThat(send.traceId()).isNotNull();
        }
        send.end(null);

        Map<String, String> delivered = new HashMap<>();
        headers.forEach((k, v) -> delivered.put(k.toUpperCase(java.util.Locale.ROOT), v)); // a broker may change the case
        TraceSpan process = tracing.start(SpanRequest.process("kafka", "orders", "E-1", "O-1", "inventory", delivered,
                Map.of()));
        List<String> processIds = List.of(String.valueOf(process.traceId()), String.valueOf(process.spanId()));
        process.end(new IllegalStateException("out of stock"));
        return new Flow(headers, createIds, processIds);
    }

    private void assertTimers() {
        Timer create = meters.find("postbox.create").tag("messaging.destination.name", "orders").timer();
        Timer send = meters.find("postbox.send").tag("messaging.system", "kafka").timer();
        Timer process = meters.find("postbox.process").tag("messaging.consumer.group.name", "inventory")
                .tag("error", "IllegalStateException").timer();
        assertThat(create).isNotNull();
        assertThat(create.count()).isEqualTo(1);
        assertThat(send).isNotNull();
        assertThat(process).as("the failed delivery's timer carries its error").isNotNull();
        assertThat(meters.find("postbox.create").tagKeys("messaging.message.id").timer())
                .as("the event number is no timer tag").isNull();
        assertThat(create.getId().getTag("messaging.consumer.group.name")).as("absent keys are tagged none").isEqualTo("none");
    }

    @Test
    void everyObservationOfOneNameHasTheSameTagKeysWhateverItsSpanLacks() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        ObservationTracing tracing = new ObservationTracing(registry);
        tracing.start(SpanRequest.send("kafka", "orders", null, null, List.of(Map.of()), Map.of())).end(null);
        tracing.start(SpanRequest.send("kafka", null, null, null, List.of(Map.of(), Map.of()), Map.of())).end(null);
        tracing.start(SpanRequest.process("postbox", "c", "E-1", null, null, null, Map.of())).end(null);
        tracing.start(SpanRequest.process("kafka", "orders", "E-1", "O-1", "inventory", Map.of(), Map.of())).end(null);
        for (String name : List.of("postbox.send", "postbox.process")) {
            assertThat(meters.find(name).timers()).hasSize(2);
            assertThat(meters.find(name).timers()).extracting(t -> t.getId().getTags().stream()
                            .map(io.micrometer.core.instrument.Tag::getKey).sorted().toList())
                    .as("Prometheus refuses one name with two tag key sets").containsOnly(List.of("error",
                            "messaging.consumer.group.name", "messaging.destination.name", "messaging.operation.name",
                            "messaging.operation.type", "messaging.system"));
        }
    }

    private static SpanData span(InMemorySpanExporter spans, String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " among "
                        + spans.getFinishedSpanItems().stream().map(SpanData::getName).toList()));
    }

    private static MutableSpan brave(List<MutableSpan> spans, String name) {
        return spans.stream().filter(s -> name.equals(s.name())).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " among "
                        + spans.stream().map(MutableSpan::name).toList()));
    }
}
