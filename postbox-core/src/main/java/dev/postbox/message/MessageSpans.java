package dev.postbox.message;

import dev.postbox.internal.Json;
import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The spans of a message event: {@code create {event_type}} at the write, whose injected context is stored in
 * {@code trace_context}, and the worker's {@code process {event_type}}, its child. A tracer that fails never fails
 * the write or stops the worker: its span is then {@link TraceSpan#NOOP}.
 */
final class MessageSpans {

    /** The size of the {@code trace_context} column (characters). */
    static final int CONTEXT_COLUMN_SIZE = 2000;

    private MessageSpans() {
    }

    /** The create span of a message event, a child of the thread's current context. */
    static TraceSpan create(PostboxTracing tracing, MessageEvent e, String eventNo) {
        if (tracing == PostboxTracing.NOOP) {
            return TraceSpan.NOOP;
        }
        try {
            return tracing.start(SpanRequest.create(e.eventType(), eventNo, e.bizId(),
                    Map.of("postbox.event.type", e.eventType(), "postbox.biz.type", e.bizType())));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP;
        }
    }

    /**
     * What {@code span} injects, as the JSON object stored in {@code trace_context}; null when it injects nothing. A
     * context longer than the column loses {@code baggage}, then {@code tracestate} (W3C lets a hop drop tracestate
     * it cannot carry); one still too long is not stored and the worker's span starts a trace of its own.
     */
    static String context(TraceSpan span) {
        if (span == TraceSpan.NOOP) {
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        try {
            span.inject(headers);
        } catch (RuntimeException tracerFailed) {
            return null;
        }
        headers.values().removeIf(v -> v == null);
        for (String dropped : new String[] {null, "baggage", "tracestate"}) {
            if (dropped != null) {
                headers.keySet().removeIf(k -> k.equalsIgnoreCase(dropped));
            }
            if (headers.isEmpty()) {
                return null;
            }
            String json = Json.writeHeaders(headers);
            if (json.length() <= CONTEXT_COLUMN_SIZE) {
                return json;
            }
        }
        return null;
    }

    /**
     * The {@code process {event_type}} span of one handler call, the child of the write's context
     * ({@link MessageRecord#traceContext()}). A row written without one (untraced, or before schema version 10) but
     * with a W3C trace id in {@code trace_id} joins that trace under a span id derived from the event number, which
     * no exported span has.
     */
    static TraceSpan process(PostboxTracing tracing, MessageRecord event, String id) {
        if (tracing == PostboxTracing.NOOP) {
            return TraceSpan.NOOP;
        }
        try {
            Map<String, String> parent = event.traceContext().isEmpty() ? null : event.traceContext();
            String traceId = event.traceId();
            if (parent == null && traceId != null && traceId.length() == 32
                    && traceId.chars().allMatch(MessageSpans::isLowerHex) && !traceId.equals("0".repeat(32))) {
                parent = Map.of("traceparent", "00-" + traceId + "-" + derivedSpanId(event.eventNo()) + "-01");
            }
            return tracing.start(new SpanRequest(SpanRequest.Operation.PROCESS, SpanRequest.POSTBOX_SYSTEM,
                    event.eventType(), event.eventNo(), event.bizId(), 1, "message-worker", parent, null,
                    Map.of("postbox.event.type", event.eventType(), "postbox.biz.type", event.bizType(),
                            "postbox.worker.id", id)));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP;
        }
    }

    private static boolean isLowerHex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }

    private static String derivedSpanId(String eventNo) {
        long h = 1125899906842597L;
        for (int i = 0; i < eventNo.length(); i++) {
            h = 31 * h + eventNo.charAt(i);
        }
        return String.format("%016x", h == 0 ? 1 : h);
    }
}
