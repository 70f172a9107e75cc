package dev.postbox.server;

import dev.postbox.server.config.ServerConfig;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Whether the server traces, and the OpenTelemetry autoconfigure properties ({@code otel.*}) it adds to the ones the
 * operator set. Tracing is off unless something asks for it, so that a server nobody pointed at a collector never
 * tries to export to {@code localhost:4318}:
 * <ul>
 *   <li>on: {@code tracing.enabled: true}, {@code tracing.otlp-endpoint}, an {@code OTEL_TRACES_EXPORTER} other than
 *       {@code none}, {@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} (or their
 *       {@code otel.*} system properties);</li>
 *   <li>off: none of these, {@code tracing.enabled: false} (whatever the environment says),
 *       {@code OTEL_SDK_DISABLED=true} or {@code OTEL_TRACES_EXPORTER=none}.</li>
 * </ul>
 * When on, the file's {@code tracing:} values and the server's defaults ({@value #DEFAULT_EXPORTER} traces by
 * {@value #DEFAULT_PROTOCOL}, service {@value ServerConfig.Tracing#DEFAULT_SERVICE_NAME}, no metrics and no logs
 * exporter: the server has its Prometheus endpoint) fill in only what the environment and the system properties leave
 * unset: those win, as OpenTelemetry's own precedence has it (system property over environment variable).
 *
 * @param enabled    whether the server builds an OpenTelemetry SDK at all
 * @param reason     what decided it, for the log ({@code OTEL_TRACES_EXPORTER is otlp})
 * @param properties the {@code otel.*} properties to add, none of them set by the operator; empty when off
 */
record TracingPlan(boolean enabled, String reason, Map<String, String> properties) {

    /** {@code otel.traces.exporter} when tracing is on and nothing names one. */
    static final String DEFAULT_EXPORTER = "otlp";
    /**
     * {@code otel.exporter.otlp.protocol}: the specification's default and port 4318 (the Java SDK's own default is gRPC
     * on 4317); {@code OTEL_EXPORTER_OTLP_PROTOCOL=grpc} chooses gRPC.
     */
    static final String DEFAULT_PROTOCOL = "http/protobuf";

    TracingPlan {
        properties = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** The plan for this process: {@code file} with the process's environment and system properties. */
    static TracingPlan ofProcess(ServerConfig.Tracing file) {
        return of(file, System.getenv(), System.getProperties());
    }

    /** The plan for {@code file} with {@code environment} ({@code OTEL_*} read) and {@code systemProperties} ({@code otel.*}). */
    static TracingPlan of(ServerConfig.Tracing file, Map<String, String> environment, Properties systemProperties) {
        Map<String, String> given = given(environment, systemProperties);
        if (Boolean.FALSE.equals(file.enabled())) {
            return off("tracing.enabled is false");
        }
        if ("true".equalsIgnoreCase(given.get("otel.sdk.disabled"))) {
            return off("OTEL_SDK_DISABLED is true");
        }
        String exporter = given.get("otel.traces.exporter");
        if ("none".equalsIgnoreCase(exporter)) {
            return off("OTEL_TRACES_EXPORTER is none");
        }
        String asked = Boolean.TRUE.equals(file.enabled()) ? "tracing.enabled is true"
                : exporter != null ? "OTEL_TRACES_EXPORTER is " + exporter
                : given.containsKey("otel.exporter.otlp.traces.endpoint") ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set"
                : given.containsKey("otel.exporter.otlp.endpoint") ? "OTEL_EXPORTER_OTLP_ENDPOINT is set"
                : file.otlpEndpoint() != null ? "tracing.otlp-endpoint is set"
                : null;
        if (asked == null) {
            return off("nothing asks for it; tracing.enabled: true, OTEL_TRACES_EXPORTER or OTEL_EXPORTER_OTLP_ENDPOINT"
                    + " turn it on");
        }
        Map<String, String> add = new LinkedHashMap<>();
        add.put("otel.traces.exporter", DEFAULT_EXPORTER);
        add.put("otel.metrics.exporter", "none");
        add.put("otel.logs.exporter", "none");
        add.put("otel.exporter.otlp.protocol", DEFAULT_PROTOCOL);
        if (file.otlpEndpoint() != null) {
            add.put("otel.exporter.otlp.endpoint", file.otlpEndpoint());
        }
        if (file.samplerRatio() != null) {
            add.put("otel.traces.sampler", "parentbased_traceidratio");
            add.put("otel.traces.sampler.arg", String.valueOf(file.samplerRatio()));
        }
        if (!serviceNamed(given)) {
            add.put("otel.service.name", file.serviceName() != null ? file.serviceName()
                    : ServerConfig.Tracing.DEFAULT_SERVICE_NAME);
        }
        add.keySet().removeAll(given.keySet());
        return new TracingPlan(true, asked, add);
    }

    private static TracingPlan off(String reason) {
        return new TracingPlan(false, reason, Map.of());
    }

    /**
     * What the operator set, by property name: {@code OTEL_FOO_BAR} as {@code otel.foo.bar}, then the {@code otel.*}
     * system properties over them; blank values count as unset.
     */
    private static Map<String, String> given(Map<String, String> environment, Properties systemProperties) {
        Map<String, String> given = new HashMap<>();
        environment.forEach((k, v) -> {
            if (k.startsWith("OTEL_") && v != null && !v.isBlank()) {
                given.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v.trim());
            }
        });
        for (String k : systemProperties.stringPropertyNames()) {
            String v = systemProperties.getProperty(k);
            if (k.startsWith("otel.") && v != null && !v.isBlank()) {
                given.put(k.toLowerCase(Locale.ROOT).replace('-', '.'), v.trim());
            }
        }
        return given;
    }

    private static boolean serviceNamed(Map<String, String> given) {
        if (given.containsKey("otel.service.name")) {
            return true;
        }
        String attributes = given.get("otel.resource.attributes");
        if (attributes != null) {
            for (String pair : attributes.split(",")) {
                int eq = pair.indexOf('=');
                if (eq > 0 && pair.substring(0, eq).trim().equals("service.name")) {
                    return true;
                }
            }
        }
        return false;
    }
}
