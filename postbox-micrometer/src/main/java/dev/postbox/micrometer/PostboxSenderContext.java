package dev.postbox.micrometer;

import dev.postbox.tracing.SpanRequest;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The observation context of an outbox write ({@code create}) or a relay batch ({@code send}): a Micrometer
 * {@link SenderContext} whose carrier collects the headers the tracing handler injects (W3C {@code traceparent},
 * {@code tracestate}, {@code baggage}), which Postbox stores with the event. A {@code send} context's
 * {@link SpanRequest#links()} are the creation contexts of the batch's events; {@link PostboxSendTracingHandler}
 * turns them into span links.
 */
public final class PostboxSenderContext extends SenderContext<Map<String, String>> implements PostboxObservationContext {

    private final SpanRequest request;

    PostboxSenderContext(SpanRequest request) {
        super((carrier, key, value) -> {
            if (carrier != null && key != null && value != null) {
                carrier.put(key, value);
            }
        }, Kind.PRODUCER);
        this.request = Objects.requireNonNull(request, "request");
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName(request.system());
    }

    @Override
    public SpanRequest request() {
        return request;
    }
}
