package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

import javax.sql.DataSource;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Postbox that traces with the OpenTelemetry SDK as an application would (every span sampled, a batch span
 * processor) into an exporter that counts and drops the spans: what tracing costs the writer and the relay,
 * without a collector.
 */
record TracedPostbox(Postbox postbox, OpenTelemetrySdk sdk, AtomicLong exported) implements AutoCloseable {

    static TracedPostbox open(DataSource pool) {
        AtomicLong exported = new AtomicLong();
        SpanExporter dropping = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                exported.addAndGet(spans.size());
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
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        Postbox postbox = Postbox.builder(pool).source("bench").notifyOnWrite(false)
                .tracing(new OpenTelemetryTracing(sdk)).build();
        return new TracedPostbox(postbox, sdk, exported);
    }

    @Override
    public void close() {
        sdk.close();
    }
}
