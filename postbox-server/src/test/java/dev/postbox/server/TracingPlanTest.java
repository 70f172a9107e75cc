package dev.postbox.server;

import dev.postbox.server.config.ServerConfig;
import dev.postbox.tracing.PostboxTracing;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/**
 * When the server traces, and the OpenTelemetry properties its {@code tracing:} section and defaults add: off unless
 * something asks for it, the operator's {@code OTEL_*} variables and {@code otel.*} properties always winning.
 */
class TracingPlanTest {

    private static final ServerConfig.Tracing NONE = ServerConfig.Tracing.NONE;

    private static TracingPlan plan(ServerConfig.Tracing file, Map<String, String> env) {
        return TracingPlan.of(file, env, new Properties());
    }

    private static Properties properties(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void nothingAskingForTracingLeavesItOffEvenWithAServiceNameOrProtocolSet() {
        TracingPlan plan = plan(NONE, Map.of("OTEL_SERVICE_NAME", "relay", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
                "OTEL_TRACES_EXPORTER", " ", "PATH", "/usr/bin"));
        assertThat(plan.enabled()).isFalse();
        assertThat(plan.reason()).startsWith("nothing asks for it").contains("tracing.enabled: true",
                "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT");
        assertThat(plan.properties()).isEmpty();
        assertThat(plan(new ServerConfig.Tracing(null, null, "relay", 0.5), Map.of()).enabled())
                .as("a service name and a ratio in the file ask for nothing").isFalse();
    }

    @Test
    void theFileAnExporterOrAnEndpointEachTurnItOn() {
        assertThat(plan(new ServerConfig.Tracing(true, null, null, null), Map.of()).reason())
                .isEqualTo("tracing.enabled is true");
        assertThat(plan(new ServerConfig.Tracing(null, "http://collector:4318", null, null), Map.of()).reason())
                .isEqualTo("tracing.otlp-endpoint is set");
        assertThat(plan(NONE, Map.of("OTEL_TRACES_EXPORTER", "otlp")).reason()).isEqualTo("OTEL_TRACES_EXPORTER is otlp");
        assertThat(plan(NONE, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")).reason())
                .isEqualTo("OTEL_EXPORTER_OTLP_ENDPOINT is set");
        assertThat(plan(NONE, Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")).reason())
                .isEqualTo("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set");
        assertThat(TracingPlan.of(NONE, Map.of(), properties("otel.traces.exporter", "otlp")).enabled())
                .as("the system property as the variable").isTrue();
    }

    @Test
    void theFilesFalseTheSdkSwitchAndExporterNoneTurnItOffWhateverElseAsks() {
        Map<String, String> asking = Map.of("OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318");
        TracingPlan off = plan(new ServerConfig.Tracing(false, "http://collector:4318", null, null), asking);
        assertThat(off.enabled()).isFalse();
        assertThat(off.reason()).isEqualTo("tracing.enabled is false");

        ServerConfig.Tracing on = new ServerConfig.Tracing(true, null, null, null);
        assertThat(plan(on, Map.of("OTEL_SDK_DISABLED", "true")).reason()).isEqualTo("OTEL_SDK_DISABLED is true");
        assertThat(plan(on, Map.of("OTEL_TRACES_EXPORTER", "none")).reason()).isEqualTo("OTEL_TRACES_EXPORTER is none");
        assertThat(TracingPlan.of(NONE, asking, properties("otel.traces.exporter", "none")).enabled())
                .as("a system property wins over the variable").isFalse();
    }

    @Test
    void theFilesValuesAndTheServersDefaultsFillInWhatTheOperatorLeftUnset() {
        TracingPlan plan = plan(new ServerConfig.Tracing(true, "http://collector:4318", "relay-eu", 0.25), Map.of());
        assertThat(plan.properties()).containsOnly(
                entry("otel.traces.exporter", "otlp"),
                entry("otel.metrics.exporter", "none"),
                entry("otel.logs.exporter", "none"),
                entry("otel.exporter.otlp.protocol", "http/protobuf"),
                entry("otel.exporter.otlp.endpoint", "http://collector:4318"),
                entry("otel.traces.sampler", "parentbased_traceidratio"),
                entry("otel.traces.sampler.arg", "0.25"),
                entry("otel.service.name", "relay-eu"));
        assertThat(plan(new ServerConfig.Tracing(true, null, null, null), Map.of()).properties())
                .containsEntry("otel.service.name", ServerConfig.Tracing.DEFAULT_SERVICE_NAME)
                .doesNotContainKeys("otel.exporter.otlp.endpoint", "otel.traces.sampler", "otel.traces.sampler.arg");
    }

    @Test
    void whatTheOperatorSetIsNeverOverridden() {
        ServerConfig.Tracing file = new ServerConfig.Tracing(true, "http://collector:4318", "relay-eu", 0.25);
        TracingPlan plan = TracingPlan.of(file, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://other:4318",
                "OTEL_METRICS_EXPORTER", "otlp", "OTEL_TRACES_SAMPLER", "always_on", "OTEL_SERVICE_NAME", "from-env"),
                properties("otel.exporter.otlp.protocol", "grpc"));
        assertThat(plan.properties()).containsOnlyKeys("otel.traces.exporter", "otel.logs.exporter",
                "otel.traces.sampler.arg");
        assertThat(plan(file, Map.of("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod, service.name=billing"))
                .properties()).as("a service name among the resource attributes").doesNotContainKey("otel.service.name");
        assertThat(plan(file, Map.of("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod")).properties())
                .containsEntry("otel.service.name", "relay-eu");
    }

    @Test
    void offBuildsNoSdkAndASettingTheSdkRefusesFailsTheStartNamingIt() {
        try (ServerTracing off = ServerTracing.start(plan(NONE, Map.of()))) {
            assertThat(off.enabled()).isFalse();
            assertThat(off.tracing()).isSameAs(PostboxTracing.NOOP);
        }
        TracingPlan badSampler = new TracingPlan(true, "tracing.enabled is true", Map.of("otel.traces.exporter", "none",
                "otel.metrics.exporter", "none", "otel.logs.exporter", "none", "otel.traces.sampler", "sometimes"));
        assertThatThrownBy(() -> ServerTracing.start(badSampler)).isInstanceOf(RelayServer.ServerStartException.class)
                .hasMessageStartingWith("tracing (on: tracing.enabled is true): the OpenTelemetry SDK could not be"
                        + " configured: ").hasMessageContaining("otel.traces.sampler").hasMessageContaining("sometimes");
    }
}
