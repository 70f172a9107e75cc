package dev.postbox.micrometer;

import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import java.util.Map;
import java.util.Objects;

/**
 * {@link PostboxTracing} on Micrometer Tracing, the tracer behind Micrometer Observation (and so behind Spring
 * Boot's tracing, with the Brave or the OpenTelemetry bridge alike): spans of the application's {@link Tracer}, the
 * current span (the HTTP request's observation) as the parent of a write's {@code create} span, contexts written and
 * read by its {@link Propagator} (W3C trace context and baggage in Spring Boot's default configuration). The
 * starter uses it when the application has a {@code Tracer} and a {@code Propagator}. Spans rather than
 * observations: a {@code send} span links to the creation context of every event of its batch, and the Observation
 * API has no links. Thread-safe; never throws into Postbox.
 */
public final class MicrometerTracing implements PostboxTracing {

    private static final Propagator.Getter<Map<String, String>> GETTER = SpanRequest::header;

    private final Tracer tracer;
    private final Propagator propagator;

    public MicrometerTracing(Tracer tracer, Propagator propagator) {
        this.tracer = Objects.requireNonNull(tracer, "tracer");
        this.propagator = Objects.requireNonNull(propagator, "propagator");
    }

    @Override
    public TraceSpan start(SpanRequest request) {
        Span.Builder b;
        if (request.parent() != null && !request.parent().isEmpty()) {
            b = propagator.extract(request.parent(), GETTER);
        } else {
            b = tracer.spanBuilder();
            Span current = tracer.currentSpan();
            if (current != null) {
                b.setParent(current.context());
            } else {
                b.setNoParent();
            }
        }
        b.name(request.name())
                .kind(request.operation().kind() == SpanRequest.Kind.CONSUMER ? Span.Kind.CONSUMER : Span.Kind.PRODUCER);
        TraceParents.link(tracer, b, request.links());
        request.attributes().forEach((k, v) -> {
            if (v instanceof Long l) {
                b.tag(k, l);
            } else {
                b.tag(k, String.valueOf(v));
            }
        });
        return new MicrometerSpan(b.start(), tracer, propagator);
    }

    private record MicrometerSpan(Span span, Tracer tracer, Propagator propagator) implements TraceSpan {

        @Override
        public void inject(Map<String, String> carrier) {
            propagator.inject(span.context(), carrier, (c, k, v) -> {
                if (c != null) {
                    c.put(k, v);
                }
            });
        }

        @Override
        public Scope makeCurrent() {
            Tracer.SpanInScope scope = tracer.withSpan(span);
            return scope::close;
        }

        @Override
        public String traceId() {
            String id = span.context().traceId();
            return id == null || id.isEmpty() || span.isNoop() ? null : id;
        }

        @Override
        public String spanId() {
            String id = span.context().spanId();
            return id == null || id.isEmpty() || span.isNoop() ? null : id;
        }

        @Override
        public void end(Throwable error) {
            if (error != null) {
                span.error(error);
            }
            span.end();
        }
    }
}
