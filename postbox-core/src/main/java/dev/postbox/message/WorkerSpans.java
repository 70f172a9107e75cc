package dev.postbox.message;

import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;

import java.util.Map;

/** The message-event worker's spans. */
final class WorkerSpans {

    private WorkerSpans() {
    }

    /**
     * The {@code process {event_type}} span of one handler call. The message-event table keeps no headers, only the
     * trace id of the write ({@code trace_id}): when it is one (32 hex digits), the span joins that trace, its
     * parent named by the trace id and a span id derived from the event number (the write's span id is not stored).
     */
    static TraceSpan process(PostboxTracing tracing, MessageRecord event, String id) {
        if (tracing == PostboxTracing.NOOP) {
            return TraceSpan.NOOP;
        }
        try {
            Map<String, String> parent = null;
            String traceId = event.traceId();
            if (traceId != null && traceId.length() == 32 && traceId.chars().allMatch(WorkerSpans::isLowerHex)
                    && !traceId.equals("0".repeat(32))) {
                parent = Map.of("traceparent", "00-" + traceId + "-" + derivedSpanId(event.eventNo()) + "-01");
            }
            return tracing.start(new SpanRequest(SpanRequest.Operation.PROCESS, SpanRequest.POSTBOX_SYSTEM,
                    event.eventType(), event.eventNo(), event.bizId(), 1, "message-worker", parent, null,
                    Map.of("postbox.event.type", event.eventType(), "postbox.biz.type", event.bizType(),
                            "postbox.worker.id", id)));
        } catch (RuntimeException tracerFailed) {
            return TraceSpan.NOOP; // a tracer never stops the worker
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
