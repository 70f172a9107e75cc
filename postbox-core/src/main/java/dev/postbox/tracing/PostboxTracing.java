package dev.postbox.tracing;

/**
 * How Postbox reports its work to a tracer, following the OpenTelemetry messaging conventions: the outbox
 * write is a {@code create} span in the business transaction whose context (W3C {@code traceparent},
 * {@code tracestate}, {@code baggage}) is stored in the event's headers; the relay's {@code send} span links
 * to the creation context of every event of its batch; a consumer's {@code process} span is the child of the
 * creation context the delivery carries; the message-event worker's spans and the compensation job's spans
 * likewise. Bindings: {@code dev.postbox.opentelemetry.OpenTelemetryTracing} (module postbox-opentelemetry,
 * no Spring) and the starter's Micrometer Observation binding. {@link #NOOP} (the default) traces nothing
 * and stores no context.
 * <p>
 * Implementations must be thread-safe, quick, and must not throw: Postbox calls them on its relay, worker and
 * consumer threads and inside business transactions.
 */
@FunctionalInterface
public interface PostboxTracing {

    /** Traces nothing. */
    PostboxTracing NOOP = request -> TraceSpan.NOOP;

    /**
     * Starts the span {@code request} describes: the child of {@link SpanRequest#parent()} when it carries a
     * context, otherwise of the thread's current context (none: a new trace); with a link to each of
     * {@link SpanRequest#links()} that carries one.
     */
    TraceSpan start(SpanRequest request);
}
