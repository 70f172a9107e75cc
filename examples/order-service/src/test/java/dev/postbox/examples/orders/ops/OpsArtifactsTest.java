package dev.postbox.examples.orders.ops;

import dev.postbox.examples.orders.OrderServiceE2eBase;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The shipped monitoring files under {@code ops/} against the real thing: promtool accepts both rule files and
 * their unit tests pass; the PrometheusRule holds the rule file's groups; and every metric and label the alerts
 * and the dashboard query exists in a scrape of the running demo (order service, H2, with retention on so that its
 * meters and the table-size gauges are registered).
 */
class OpsArtifactsTest extends OrderServiceE2eBase {

    static final TestDatabase DB = TestDatabase.h2();
    /** Only postbox-server's meters carry it; the queries match it with {@code =~".*"}, which also matches none. */
    private static final Set<String> SERVER_ONLY_LABELS = Set.of("source");
    /** Meters the demo cannot have, each with why; their names are checked against the meter's source instead. */
    private static final Map<String, String> NOT_ON_H2 = Map.of("postbox_retention_partition_runway_seconds",
            "registered only when the outbox's retention strategy is PARTITIONS (PostgreSQL)");

    private final OpsArtifacts ops = new OpsArtifacts();
    private PrometheusScrape scrape;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        register(registry, DB);
        registry.add("postbox.retention.enabled", () -> "true");
        registry.add("postbox.retention.outbox.published", () -> "7d"); // a rule, or retention refuses to start
    }

    @Override
    protected TestDatabase database() {
        return DB;
    }

    @BeforeAll
    void scrapeAfterAnOrderWasPublished() throws Exception {
        place("ops-" + System.nanoTime(), "SKU-1", 1, "9.90");
        boolean published = await(Duration.ofSeconds(20), () -> scrapeNow().has("postbox_publish_latency_seconds_bucket"));
        assertThat(published).as("the demo published an event within 20 s (publish latency in the scrape)").isTrue();
        scrape = scrapeNow();
    }

    @Test
    void promtoolAcceptsBothRuleFilesAndTheAlertUnitTestsPass() throws Exception {
        promtool("check", "rules", ops.path(OpsArtifacts.ALERTS).toString());
        Path spec = Files.createTempFile("postbox-prometheusrule-spec", ".yml");
        try {
            Files.writeString(spec, new Yaml().dump(ops.yaml(OpsArtifacts.PROMETHEUS_RULE).get("spec")));
            promtool("check", "rules", spec.toString());
        } finally {
            Files.delete(spec);
        }
        promtool("test", "rules", ops.path(OpsArtifacts.ALERT_TESTS).toString());
    }

    @Test
    void prometheusRuleHoldsExactlyTheRuleFilesGroups() throws Exception {
        Map<String, Object> resource = ops.yaml(OpsArtifacts.PROMETHEUS_RULE);
        assertThat(resource).containsEntry("apiVersion", "monitoring.coreos.com/v1").containsEntry("kind", "PrometheusRule");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) resource.get("spec");
        assertThat(spec).containsOnlyKeys("groups");
        assertThat(spec.get("groups")).as("%s spec.groups vs %s groups", OpsArtifacts.PROMETHEUS_RULE, OpsArtifacts.ALERTS)
                .isEqualTo(ops.yaml(OpsArtifacts.ALERTS).get("groups"));
    }

    @Test
    void everyMetricAndLabelTheAlertsUseIsInTheDemosScrape() throws Exception {
        assertAllInScrape(OpsArtifacts.ALERTS, ops.alertExpressions());
    }

    @Test
    void everyMetricAndLabelTheDashboardQueriesIsInTheDemosScrape() throws Exception {
        assertAllInScrape(OpsArtifacts.DASHBOARD, ops.dashboardQueries());
    }

    private void assertAllInScrape(String file, Map<String, String> queries) {
        Set<String> missingMetrics = new TreeSet<>();
        Set<String> missingLabels = new TreeSet<>();
        queries.forEach((where, expr) -> PromQlUse.labelsByMetric(expr).forEach((metric, labels) -> {
            if (NOT_ON_H2.containsKey(metric)) {
                return;
            }
            if (!scrape.has(metric)) {
                missingMetrics.add(scrape.describeMissing(metric) + " (" + where + ")");
                return;
            }
            for (String label : labels) {
                if (!SERVER_ONLY_LABELS.contains(label) && !scrape.labels(metric).contains(label)) {
                    missingLabels.add(metric + " has no label '" + label + "' (" + where + "; it has "
                            + scrape.labels(metric) + ")");
                }
            }
        }));
        List<String> problems = new ArrayList<>();
        if (!missingMetrics.isEmpty()) {
            problems.add(missingMetrics.size() + " metric(s) not in the demo's /actuator/prometheus:\n  "
                    + String.join("\n  ", missingMetrics));
        }
        if (!missingLabels.isEmpty()) {
            problems.add(missingLabels.size() + " label(s) missing:\n  " + String.join("\n  ", missingLabels));
        }
        if (!problems.isEmpty()) {
            fail(file + " queries what the demo does not expose; " + String.join("\n", problems));
        }
    }

    @Test
    void metersTheDemoCannotHaveAreNamedAsPostboxMetricsRegistersThem() throws IOException {
        Path source = ops.root.resolve("postbox-micrometer/src/main/java/dev/postbox/micrometer/PostboxMetrics.java");
        String code = Files.readString(source);
        NOT_ON_H2.keySet().forEach(metric -> assertThat(code).as("%s: %s", metric, NOT_ON_H2.get(metric))
                .contains("TimeGauge.builder(\"" + metric.replaceFirst("_seconds$", "").replace('_', '.') + "\""));
    }

    private PrometheusScrape scrapeNow() {
        try {
            var response = get("/actuator/prometheus");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return PrometheusScrape.parse(response.body());
        } catch (Exception e) {
            throw new IllegalStateException("GET /actuator/prometheus failed", e);
        }
    }

    private void promtool(String... args) throws IOException, InterruptedException {
        Path promtool = Path.of("/usr/bin/promtool");
        if (!Files.isExecutable(promtool)) {
            fail("promtool not found at " + promtool + ": run scripts/services.sh promtool (installs Debian's"
                    + " prometheus package for its promtool)");
        }
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(ops.root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finished within 60 s", command).isTrue();
        assertThat(process.exitValue()).as("%s exit code; output:%n%s", String.join(" ", command), output).isZero();
    }
}
