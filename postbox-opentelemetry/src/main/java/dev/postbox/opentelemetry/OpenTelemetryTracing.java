package dev.postbox.opentelemetry;

import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;

import java.util.Map;
import java.util.Objects;

/**
 * {@link PostboxTracing} on the OpenTelemetry API, without Spring: spans from the tracer
 * {@value #INSTRUMENTATION_NAME} of the given {@link OpenTelemetry}, contexts written and read by its text map
 * propagator (configure W3C trace context and baggage: {@code W3CTraceContextPropagator},
 * {@code W3CBaggagePropagator}, the SDK's default with autoconfiguration).
 * <pre>{@code
 * Postbox postbox = Postbox.builder(dataSource).tracing(new OpenTelemetryTracing(openTelemetry)).build();
 * EnvelopeConsumer inventory = new EnvelopeConsumer(dataSource, postbox.inbox(), "inventory", handler)
 *         .traced(postbox.tracing(), "rabbitmq", "orders");
 * }</pre>
 * Thread-safe; never throws into Postbox (a failing tracer yields a span that records nothing).
 */
public final class OpenTelemetryTracing implements PostboxTracing {

    /** The instrumentation scope name of Postbox's tracer. */
    public static final String INSTRUMENTATION_NAME = "dev.postbox";

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return SpanRequest.header(carrier, key);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    public OpenTelemetryTracing(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION_NAME);
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    @Override
    public TraceSpan start(SpanRequest request) {
        SpanBuilder b = tracer.spanBuilder(request.name())
                .setSpanKind(request.operation().kind() == SpanRequest.Kind.CONSUMER ? SpanKind.CONSUMER : SpanKind.PRODUCER);
        Context parent = Context.current();
        if (request.parent() != null) {
            parent = propagator.extract(Context.root(), request.parent(), GETTER);
        }
        b.setParent(parent);
        for (Map<String, String> link : request.links()) {
            SpanContext linked = linkedContext(link);
            if (linked.isValid()) {
                b.addLink(linked);
            }
        }
        b.setAllAttributes(attributes(request.attributes()));
        Span span = b.startSpan();
        return new OtelSpan(span, parent.with(span), propagator);
    }

    /**
     * The context a link points to: read straight from a lone W3C {@code traceparent} (a send span links to every
     * event of its batch, so this runs per event), else by the propagator (a {@code tracestate}, another format).
     */
    private SpanContext linkedContext(Map<String, String> carrier) {
        String traceparent = carrier.get("traceparent");
        if (traceparent != null && traceparent.length() == 55 && !carrier.containsKey("tracestate")
                && traceparent.startsWith("00-") && traceparent.charAt(35) == '-' && traceparent.charAt(52) == '-') {
            int flags = Character.digit(traceparent.charAt(53), 16) << 4 | Character.digit(traceparent.charAt(54), 16);
            if (flags >= 0) {
                return SpanContext.createFromRemoteParent(traceparent.substring(3, 35), traceparent.substring(36, 52),
                        TraceFlags.fromByte((byte) flags), TraceState.getDefault());
            }
        }
        return Span.fromContext(propagator.extract(Context.root(), carrier, GETTER)).getSpanContext();
    }

    private static Attributes attributes(Map<String, Object> values) {
        AttributesBuilder a = Attributes.builder();
        values.forEach((k, v) -> {
            if (v instanceof Long l) {
                a.put(AttributeKey.longKey(k), l);
            } else {
                a.put(AttributeKey.stringKey(k), String.valueOf(v));
            }
        });
        return a.build();
    }

    /** A started span, and the context it makes current (its parent's baggage included). */
    private record OtelSpan(Span span, Context context, TextMapPropagator propagator) implements TraceSpan {

        @Override
        public void inject(Map<String, String> carrier) {
            propagator.inject(context, carrier, (c, k, v) -> {
                if (c != null) {
                    c.put(k, v);
                }
            });
        }

        @Override
        public TraceSpan.Scope makeCurrent() {
            io.opentelemetry.context.Scope scope = context.makeCurrent();
            return scope::close;
        }

        @Override
        public String traceId() {
            SpanContext c = span.getSpanContext();
            return c.isValid() ? c.getTraceId() : null;
        }

        @Override
        public String spanId() {
            SpanContext c = span.getSpanContext();
            return c.isValid() ? c.getSpanId() : null;
        }

        @Override
        public void end(Throwable error) {
            if (error != null) {
                span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
                span.setAttribute(AttributeKey.stringKey("error.type"), error.getClass().getName());
            }
            span.end();
        }
    }
}
