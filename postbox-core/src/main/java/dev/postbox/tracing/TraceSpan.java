package dev.postbox.tracing;

import java.util.Map;

/** A started span of a {@link PostboxTracing}; {@link #end} it exactly once. */
public interface TraceSpan {

    /** A span that records nothing, carries no context and injects nothing. */
    TraceSpan NOOP = new TraceSpan() {
        @Override
        public void inject(Map<String, String> carrier) {
        }

        @Override
        public Scope makeCurrent() {
            return () -> { };
        }

        @Override
        public String traceId() {
            return null;
        }

        @Override
        public String spanId() {
            return null;
        }

        @Override
        public void end(Throwable error) {
        }
    };

    /** The thread's current span until {@link #close()}. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Writes this span's context into {@code carrier} as W3C headers ({@code traceparent}, and
     * {@code tracestate} and {@code baggage} when there are any); nothing when the span carries no context.
     */
    void inject(Map<String, String> carrier);

    /** Makes this span the thread's current one (so that spans started by the code it runs are its children). */
    Scope makeCurrent();

    /** 32 lower-case hex digits, or null when this span carries no context. */
    String traceId();

    /** 16 lower-case hex digits, or null when this span carries no context. */
    String spanId();

    /** Ends the span, as failed when {@code error} is not null. */
    void end(Throwable error);
}
