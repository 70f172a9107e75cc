package dev.postbox.operations;

import java.util.Map;

/**
 * Masks what even an operator allowed to reveal payloads must not see (card numbers, personal data) before
 * {@link Operations#payload} returns it. The default returns the payload unchanged.
 */
@FunctionalInterface
public interface PayloadRedactor {

    /** The payload (JSON text) of an event of {@code eventType} as it may be shown. */
    String redactPayload(EventKind kind, String eventType, String payload);

    /** The headers as they may be shown; by default unchanged. */
    default Map<String, String> redactHeaders(EventKind kind, String eventType, Map<String, String> headers) {
        return headers;
    }

    /** Shows payloads as they are. */
    static PayloadRedactor none() {
        return (kind, type, payload) -> payload;
    }
}
