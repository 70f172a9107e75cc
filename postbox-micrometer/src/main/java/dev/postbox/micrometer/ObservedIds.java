package dev.postbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.TracingObservationHandler;

/** The ids of the span Micrometer Tracing made of an observation; loaded only where Micrometer Tracing is. */
final class ObservedIds {

    private ObservedIds() {
    }

    static String traceId(Observation.Context context) {
        Span span = span(context);
        return span == null ? null : nonEmpty(span.context().traceId());
    }

    static String spanId(Observation.Context context) {
        Span span = span(context);
        return span == null ? null : nonEmpty(span.context().spanId());
    }

    private static Span span(Observation.Context context) {
        TracingObservationHandler.TracingContext tracing = context.get(TracingObservationHandler.TracingContext.class);
        Span span = tracing == null ? null : tracing.getSpan();
        return span == null || span.isNoop() ? null : span;
    }

    private static String nonEmpty(String id) {
        return id == null || id.isEmpty() ? null : id;
    }
}
