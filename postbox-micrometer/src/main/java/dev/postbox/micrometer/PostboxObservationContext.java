package dev.postbox.micrometer;

import dev.postbox.tracing.SpanRequest;

/**
 * The Micrometer Observation context of one span Postbox asks {@link ObservationTracing} for: a
 * {@link PostboxSenderContext} (the outbox write's {@code create}, the relay's {@code send}) or a
 * {@link PostboxReceiverContext} (a consumer's, the message-event worker's or a compensation's {@code process}).
 * An {@code ObservationConvention}, {@code ObservationFilter} or {@code ObservationPredicate} of the application
 * reads what is traced from {@link #request()}.
 */
public sealed interface PostboxObservationContext permits PostboxSenderContext, PostboxReceiverContext {

    /** The span as Postbox describes it: operation, messaging system, destination, event number, links. */
    SpanRequest request();
}
