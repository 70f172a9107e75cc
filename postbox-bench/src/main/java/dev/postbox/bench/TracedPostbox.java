package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

import javax.sql.DataSource;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Postbox that traces with the OpenTelemetry SDK as an application would (every span sampled, a batch span
 * processor, the SDK's default span limits) into an exporter that counts and drops the spans: what tracing costs the
 * writer and the relay, without a collector. {@link #close()} flushes the spans still queued, so {@link #exported()}
 * is complete after it.
 */
record TracedPostbox(Postbox postbox, OpenTelemetrySdk sdk, Exported exported) implements AutoCloseable {

    /** W3C trace context alone: no trace state is set, and no baggage propagator is configured. */
    private static final ContextPropagators PROPAGATORS = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
    /**
     * The preload's create spans: the SDK's own ids and trace flags, every span sampled, none kept. A processor that
     * wants nothing, since an SDK without any hands out invalid contexts.
     */
    private static final Tracer CREATE = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn())
            .addSpanProcessor(new SpanProcessor() {
                @Override
                public void onStart(Context parent, ReadWriteSpan span) {
                }

                @Override
                public boolean isStartRequired() {
                    return false;
                }

                @Override
                public void onEnd(ReadableSpan span) {
                }

                @Override
                public boolean isEndRequired() {
                    return false;
                }
            }).build().get(OpenTelemetryTracing.INSTRUMENTATION_NAME);

    /** What the exporter saw. Thread-safe. */
    static final class Exported {

        private final LongAdder spans = new LongAdder();
        private final LongAdder links = new LongAdder();
        private final LongAdder linksKept = new LongAdder();

        private void add(Collection<SpanData> batch) {
            spans.add(batch.size());
            for (SpanData s : batch) {
                links.add(s.getTotalRecordedLinks());
                linksKept.add(s.getLinks().size());
            }
        }

        long spans() {
            return spans.sum();
        }

        /** Links the spans were started with (a send span: one per event with a creation context). */
        long links() {
            return links.sum();
        }

        /** Links the spans carry: the SDK keeps at most 128 per span by default and drops the rest. */
        long linksKept() {
            return linksKept.sum();
        }
    }

    /**
     * The context a traced write stores with its event, as the create span of this setup writes it: its trace id (for
     * the event's trace_id) and headers (a {@code traceparent} of a new sampled trace, nothing else; the SDK's flags
     * are {@code 03}: sampled, and W3C level 2's random trace id).
     */
    record CreateContext(String traceId, Map<String, String> headers) {
    }

    static TracedPostbox open(DataSource pool) {
        Exported exported = new Exported();
        SpanExporter dropping = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                exported.add(spans);
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().setSampler(Sampler.alwaysOn())
                        .addSpanProcessor(BatchSpanProcessor.builder(dropping).build()).build())
                .setPropagators(PROPAGATORS)
                .build();
        Postbox postbox = Postbox.builder(pool).source("bench").notifyOnWrite(false)
                .tracing(new OpenTelemetryTracing(sdk)).build();
        return new TracedPostbox(postbox, sdk, exported);
    }

    /**
     * A new creation context: of a root span the SDK starts (and ends at once, unexported), injected by this setup's
     * propagator, as {@code OpenTelemetryTracing} injects a create span's.
     */
    static CreateContext newCreateContext() {
        Span span = CREATE.spanBuilder("create").setSpanKind(SpanKind.PRODUCER).setNoParent().startSpan();
        span.end();
        Map<String, String> headers = new LinkedHashMap<>(2);
        PROPAGATORS.getTextMapPropagator().inject(Context.root().with(span), headers, Map::put);
        return new CreateContext(span.getSpanContext().getTraceId(), headers);
    }

    /** Shuts the SDK down: the spans still queued are exported first. */
    @Override
    public void close() {
        sdk.close();
    }
}
