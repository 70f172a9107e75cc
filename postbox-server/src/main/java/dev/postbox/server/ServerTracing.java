package dev.postbox.server;

import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.tracing.PostboxTracing;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.common.CompletableResultCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server's tracer: with a {@link TracingPlan} that is on, an OpenTelemetry SDK built by the standard
 * autoconfiguration (every {@code OTEL_*} variable and {@code otel.*} property applies, the plan's properties fill in
 * the rest) behind one {@link OpenTelemetryTracing} shared by every source's Postbox; off, {@link PostboxTracing#NOOP}
 * and no SDK at all. {@link #close()} flushes the spans still buffered and shuts the SDK down: the server calls it
 * after its relays ended their last {@code send} spans (the SDK's own shutdown hook is off, it would race the server's).
 */
final class ServerTracing implements AutoCloseable {

    /** How long {@link #close()} waits for the last spans to be exported. */
    static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(ServerTracing.class);

    private final OpenTelemetrySdk sdk;
    private final PostboxTracing tracing;

    private ServerTracing(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
        this.tracing = sdk == null ? PostboxTracing.NOOP : new OpenTelemetryTracing(sdk);
    }

    /**
     * The tracer {@code plan} asks for; an SDK that cannot be configured (an unknown exporter or sampler, a bad
     * value) fails the server's start with OpenTelemetry's message, which names the property.
     */
    static ServerTracing start(TracingPlan plan) {
        if (!plan.enabled()) {
            log.info("Tracing off: {}", plan.reason());
            return new ServerTracing(null);
        }
        String[] effective = {""};
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    .addPropertiesCustomizer(config -> {
                        effective[0] = describe(config, plan.properties());
                        return plan.properties();
                    })
                    .disableShutdownHook()
                    .build().getOpenTelemetrySdk();
        } catch (RuntimeException e) {
            throw new RelayServer.ServerStartException("tracing (on: " + plan.reason() + "): the OpenTelemetry SDK"
                    + " could not be configured: " + e.getMessage(), e);
        }
        log.info("Tracing on ({}): {}", plan.reason(), effective[0]);
        return new ServerTracing(sdk);
    }

    /** What the SDK is about to use, from the operator's settings and then {@code added}. */
    private static String describe(ConfigProperties config, Map<String, String> added) {
        java.util.function.Function<String, String> value = k -> added.containsKey(k) ? added.get(k) : config.getString(k);
        String endpoint = value.apply("otel.exporter.otlp.traces.endpoint");
        if (endpoint == null) {
            endpoint = value.apply("otel.exporter.otlp.endpoint");
        }
        String protocol = value.apply("otel.exporter.otlp.traces.protocol");
        String sampler = value.apply("otel.traces.sampler");
        String arg = value.apply("otel.traces.sampler.arg");
        String exporter = value.apply("otel.traces.exporter");
        String where = exporter != null && exporter.contains("otlp")
                ? " (" + (protocol != null ? protocol : value.apply("otel.exporter.otlp.protocol")) + " to "
                        + (endpoint != null ? endpoint : "the protocol's default endpoint") + ")"
                : exporter != null && exporter.contains("console") ? " (each span a log line)" : "";
        return "service " + value.apply("otel.service.name") + ", traces exporter " + exporter + where + ", sampler "
                + (sampler != null ? sampler : "parentbased_always_on") + (arg != null ? " " + arg : "");
    }

    /** The tracer every source's Postbox gets: the SDK's, or {@link PostboxTracing#NOOP} when off. */
    PostboxTracing tracing() {
        return tracing;
    }

    /** Whether an SDK is running (tracing on). */
    boolean enabled() {
        return sdk != null;
    }

    /** Exports what is still buffered and shuts the SDK down, waiting up to {@link #SHUTDOWN_TIMEOUT}. */
    @Override
    public void close() {
        if (sdk == null) {
            return;
        }
        CompletableResultCode done = sdk.shutdown().join(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!done.isSuccess()) {
            log.warn("Tracing: the last spans were not all exported within {} s (is the collector reachable?)",
                    SHUTDOWN_TIMEOUT.toSeconds());
        }
    }
}
