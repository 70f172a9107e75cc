package dev.postbox.micrometer;

import dev.postbox.tracing.SpanRequest;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import java.util.Map;
import java.util.Objects;

/**
 * The observation context of one {@code process} span: a consumer's delivery, a message-event worker's handler call,
 * a compensation's action. A Micrometer {@link ReceiverContext} whose carrier is the creation context the delivery
 * carries ({@link SpanRequest#parent()}, W3C headers read ignoring case), so the tracing handler starts the span as
 * its child.
 */
public final class PostboxReceiverContext extends ReceiverContext<Map<String, String>> implements PostboxObservationContext {

    private final SpanRequest request;

    PostboxReceiverContext(SpanRequest request) {
        super((carrier, key) -> SpanRequest.header(carrier, key), Kind.CONSUMER);
        this.request = Objects.requireNonNull(request, "request");
        setCarrier(request.parent() == null ? Map.of() : request.parent());
        setRemoteServiceName(request.system());
    }

    @Override
    public SpanRequest request() {
        return request;
    }
}
