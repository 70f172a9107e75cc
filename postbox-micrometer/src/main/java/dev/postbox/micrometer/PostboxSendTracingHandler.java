package dev.postbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * The tracing handler of Postbox's {@link PostboxSenderContext}s: Micrometer Tracing's sender handler (a PRODUCER span,
 * the child of the current observation's span, its context injected into the carrier Postbox stores with the event),
 * plus what that handler cannot do: a {@code send} span's link to the creation context of every event of its batch.
 * Register it ahead of the general sender handler (Spring Boot: the starter declares it as a bean ordered before
 * Boot's); without it a send span is still reported, but without links.
 * <pre>{@code
 * registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
 *         new PostboxSendTracingHandler(tracer, propagator),
 *         new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
 *         new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
 *         new DefaultTracingObservationHandler(tracer)));
 * }</pre>
 */
public class PostboxSendTracingHandler extends PropagatingSenderTracingObservationHandler<PostboxSenderContext> {

    public PostboxSendTracingHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
    }

    @Override
    public Span createSenderSpan(PostboxSenderContext context) {
        Span parent = getParentSpan(context);
        if (parent == null) {
            parent = getTracer().currentSpan(); // a span the application started without an observation
        }
        Span.Builder builder = getTracer().spanBuilder().kind(Span.Kind.PRODUCER);
        if (parent != null) {
            builder.setParent(parent.context());
        } else {
            builder.setNoParent();
        }
        if (context.getRemoteServiceName() != null) {
            builder.remoteServiceName(context.getRemoteServiceName());
        }
        TraceParents.link(getTracer(), builder, context.request().links());
        return builder.start();
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof PostboxSenderContext;
    }
}
