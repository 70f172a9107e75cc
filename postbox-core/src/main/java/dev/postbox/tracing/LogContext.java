package dev.postbox.tracing;

import org.slf4j.MDC;

/**
 * The SLF4J MDC keys Postbox sets while it works on one event, so that every log line of the relay, the
 * message-event worker, a compensation and a consumer's handler (the application's own lines included) can be
 * joined with the event's row and its trace: {@value #EVENT_NO}, {@value #AGGREGATE}
 * ({@code type:id}), {@value #TRACE_ID} and {@value #SPAN_ID}. A logback pattern shows them with
 * {@code %X{event_no}}; JSON encoders include the MDC as fields. Postbox never logs an event's payload.
 */
public final class LogContext implements TraceSpan.Scope {

    public static final String EVENT_NO = "event_no";
    public static final String AGGREGATE = "aggregate";
    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";

    private static final String[] KEYS = {EVENT_NO, AGGREGATE, TRACE_ID, SPAN_ID};

    private final String[] before = new String[KEYS.length];

    private LogContext(String... values) {
        for (int i = 0; i < KEYS.length; i++) {
            before[i] = MDC.get(KEYS[i]);
            put(KEYS[i], values[i]);
        }
    }

    /**
     * Sets the keys of {@code eventNo}, {@code aggregate} and {@code span} (null values leave a key unset) until
     * {@link #close()}, which restores what the thread had before.
     */
    public static LogContext open(String eventNo, String aggregate, TraceSpan span) {
        TraceSpan s = span == null ? TraceSpan.NOOP : span;
        return new LogContext(eventNo, aggregate, s.traceId(), s.spanId());
    }

    /**
     * As {@link #open(String, String, TraceSpan)}, with the ids of a trace that is not current here (e.g. an event's
     * {@code trace_id}: the trace of the request that wrote it); null values leave a key unset.
     */
    public static LogContext open(String eventNo, String aggregate, String traceId, String spanId) {
        return new LogContext(eventNo, aggregate, traceId, spanId);
    }

    /** {@code type:id}, or null when both are null. */
    public static String aggregate(String type, String id) {
        return type == null && id == null ? null : type + ":" + id;
    }

    @Override
    public void close() {
        for (int i = 0; i < KEYS.length; i++) {
            put(KEYS[i], before[i]);
        }
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
