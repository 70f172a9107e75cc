package dev.postbox.operations;

import java.util.Map;

/** An event's payload and headers after redaction, and the audit entry that records who saw it. */
public record RevealedPayload(EventKind kind, String eventNo, String payload, Map<String, String> headers, long auditId) {
    public RevealedPayload {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
}
