package dev.postbox.micrometer;

import dev.postbox.tracing.PostboxTracing;
import dev.postbox.tracing.SpanRequest;
import dev.postbox.tracing.TraceSpan;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@link PostboxTracing} through Micrometer Observation, the instrumentation API of Spring: each span Postbox asks
 * for is an observation ({@code postbox.create}, {@code postbox.send}, {@code postbox.process}; see
 * {@link PostboxObservationConvention}) of the application's {@link ObservationRegistry}, so its handlers decide what
 * becomes of it: Micrometer Tracing's handlers make the spans (the write's {@code create} span the child of the
 * current observation, the HTTP request's in a web application; its context injected into the headers Postbox stores
 * with the event; a consumer's {@code process} span the child of the context the delivery carries), the meter
 * handler makes timers, and the registry's predicates, filters and global conventions apply (Spring Boot:
 * {@code management.observations.enable.postbox=false} turns them off). Register
 * {@link PostboxSendTracingHandler} for the {@code send} spans' links to the creation context of each event of the
 * batch (the starter does).
 * <p>
 * Trace and span ids (the row's {@code trace_id}, the MDC) come from Micrometer Tracing when it is on the class path
 * and handled the observation; with a registry that only meters, nothing is injected or stored. Thread-safe; never
 * throws into Postbox.
 */
public final class ObservationTracing implements PostboxTracing {

    private static final boolean TRACING_PRESENT = present("io.micrometer.tracing.handler.TracingObservationHandler");

    private final ObservationRegistry registry;
    private final Map<SpanRequest.Operation, PostboxObservationConvention> conventions =
            new EnumMap<>(SpanRequest.Operation.class);

    public ObservationTracing(ObservationRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        for (SpanRequest.Operation operation : SpanRequest.Operation.values()) {
            conventions.put(operation, new PostboxObservationConvention(operation));
        }
    }

    @Override
    public TraceSpan start(SpanRequest request) {
        if (registry.isNoop()) {
            return TraceSpan.NOOP;
        }
        try {
            Observation.Context context = request.operation() == SpanRequest.Operation.PROCESS
                    ? new PostboxReceiverContext(request) : new PostboxSenderContext(request);
            Observation observation = Observation.createNotStarted(null, conventions.get(request.operation()),
                    () -> context, registry).start();
            return new ObservedSpan(observation, context);
        } catch (RuntimeException handlerFailed) {
            return TraceSpan.NOOP; // a failing handler never stops a write, a relay or a consumer
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, ObservationTracing.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private record ObservedSpan(Observation observation, Observation.Context context) implements TraceSpan {

        /** The headers the tracing handler injected into a sender context's carrier; nothing for a process span. */
        @Override
        public void inject(Map<String, String> carrier) {
            if (carrier != null && context instanceof PostboxSenderContext sender && sender.getCarrier() != null) {
                carrier.putAll(sender.getCarrier());
            }
        }

        @Override
        public Scope makeCurrent() {
            Observation.Scope scope = observation.openScope();
            return scope::close;
        }

        @Override
        public String traceId() {
            return TRACING_PRESENT ? ObservedIds.traceId(context) : null;
        }

        @Override
        public String spanId() {
            return TRACING_PRESENT ? ObservedIds.spanId(context) : null;
        }

        @Override
        public void end(Throwable error) {
            try {
                if (error != null) {
                    observation.error(error);
                }
                observation.stop();
            } catch (RuntimeException handlerFailed) {
                // the work it observed is done; a handler's failure is not Postbox's
            }
        }
    }
}
