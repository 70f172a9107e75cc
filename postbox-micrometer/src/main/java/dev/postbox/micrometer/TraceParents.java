package dev.postbox.micrometer;

import dev.postbox.tracing.SpanRequest;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;

import java.util.Map;

/** W3C {@code traceparent} headers read into Micrometer Tracing contexts; loaded only where Micrometer Tracing is. */
final class TraceParents {

    private TraceParents() {
    }

    /** Adds to {@code builder} a link to the context each carrier's {@code traceparent} names (malformed ones skipped). */
    static void link(Tracer tracer, Span.Builder builder, Iterable<Map<String, String>> carriers) {
        for (Map<String, String> carrier : carriers) {
            TraceContext linked = context(tracer, SpanRequest.header(carrier, "traceparent"));
            if (linked != null) {
                builder.addLink(new Link(linked));
            }
        }
    }

    /** The context a W3C {@code traceparent} names, or null when it is missing or malformed. */
    static TraceContext context(Tracer tracer, String traceparent) {
        if (traceparent == null) {
            return null;
        }
        String[] parts = traceparent.trim().split("-");
        if (parts.length < 4 || parts[1].length() != 32 || parts[2].length() != 16 || parts[3].length() != 2) {
            return null;
        }
        try {
            boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
            return tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(sampled).build();
        } catch (RuntimeException malformed) {
            return null;
        }
    }
}
