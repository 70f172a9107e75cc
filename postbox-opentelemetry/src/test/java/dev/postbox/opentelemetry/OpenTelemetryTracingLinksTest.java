package dev.postbox.opentelemetry;

import dev.postbox.tracing.SpanRequest;
import io.opentelemetry.api.trace.SpanContext;
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

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The links of a send span, one per event of the batch: read straight from a W3C {@code traceparent} (sampled or not,
 * any flags), by the propagator when a {@code tracestate} comes with it (kept in the link), none for a missing or
 * malformed context.
 */
class OpenTelemetryTracingLinksTest {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();

    @AfterEach
    void close() {
        sdk.close();
    }

    @Test
    void eachEventsCreationContextIsLinkedAndNothingElse() {
        String t1 = "4bf92f3577b34da6a3ce929d0e0e4736";
        String t2 = "0af7651916cd43dd8448eb211c80319c";
        List<Map<String, String>> carriers = List.of(
                Map.of("traceparent", "00-" + t1 + "-00f067aa0ba902b7-01", "baggage", "tenant=t-1"),
                Map.of("traceparent", "00-" + t1 + "-00f067aa0ba902b8-00"),
                Map.of("traceparent", "00-" + t2 + "-b7ad6b7169203331-03", "tracestate", "vendor=abc"),
                Map.of("TRACEPARENT", "00-" + t2 + "-b7ad6b7169203332-01"),
                Map.of("traceparent", "00-" + t2 + "-b7ad6b716920333x-01"),
                Map.of("traceparent", "00-00000000000000000000000000000000-b7ad6b7169203333-01"),
                Map.of("traceparent", "00-" + t2 + "-b7ad6b7169203334-0g"),
                Map.of("traceparent", "garbage"),
                Map.of());
        new OpenTelemetryTracing(sdk).start(SpanRequest.send("kafka", "orders", null, null, carriers, Map.of())).end(null);

        SpanData send = spans.getFinishedSpanItems().get(0);
        List<SpanContext> linked = send.getLinks().stream().map(LinkData::getSpanContext).toList();
        assertThat(linked).extracting(SpanContext::getSpanId)
                .containsExactly("00f067aa0ba902b7", "00f067aa0ba902b8", "b7ad6b7169203331", "b7ad6b7169203332");
        assertThat(linked.get(0).isSampled()).isTrue();
        assertThat(linked.get(0).isRemote()).isTrue();
        assertThat(linked.get(1).isSampled()).as("an unsampled event is linked all the same").isFalse();
        assertThat(linked.get(2).getTraceState().get("vendor")).as("a tracestate is kept").isEqualTo("abc");
        assertThat(linked.get(3).getTraceId()).as("headers whose case a broker changed").isEqualTo(t2);
        assertThat(send.getTotalRecordedLinks()).isEqualTo(4);
    }
}
