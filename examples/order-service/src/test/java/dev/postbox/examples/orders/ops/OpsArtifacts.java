package dev.postbox.examples.orders.ops;

import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The shipped files under {@code ops/} (found from the working directory upwards) and the queries in them. */
final class OpsArtifacts {

    static final String ALERTS = "ops/prometheus/postbox-alerts.yml";
    static final String ALERT_TESTS = "ops/prometheus/postbox-alerts.test.yml";
    static final String PROMETHEUS_RULE = "ops/kubernetes/postbox-prometheusrule.yaml";
    static final String DASHBOARD = "ops/grafana/postbox-dashboard.json";

    final Path root;

    OpsArtifacts() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve(ALERTS))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(ALERTS + " not found above " + Path.of("").toAbsolutePath());
        }
        root = dir;
    }

    Path path(String file) {
        return root.resolve(file);
    }

    Map<String, Object> yaml(String file) throws IOException {
        try (Reader in = Files.newBufferedReader(path(file))) {
            return new Yaml().load(in);
        }
    }

    /** The alert rules' expressions by alert name. */
    @SuppressWarnings("unchecked")
    Map<String, String> alertExpressions() throws IOException {
        Map<String, String> exprs = new LinkedHashMap<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) yaml(ALERTS).get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                exprs.put((String) rule.getOrDefault("alert", rule.get("record")), (String) rule.get("expr"));
            }
        }
        return exprs;
    }

    /** Every query in the dashboard, by where it is: each panel target's expr and each variable's query. */
    Map<String, String> dashboardQueries() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(path(DASHBOARD)));
        Map<String, String> queries = new LinkedHashMap<>();
        List<JsonNode> panels = new ArrayList<>();
        dashboard.path("panels").forEach(panels::add);
        for (int i = 0; i < panels.size(); i++) {
            JsonNode panel = panels.get(i);
            panel.path("panels").forEach(panels::add); // a collapsed row holds its panels
            for (JsonNode target : panel.path("targets")) {
                queries.put("panel '" + panel.path("title").asString() + "' " + target.path("refId").asString(),
                        target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString().equals("query")) {
                queries.put("variable " + variable.path("name").asString(), variable.path("definition").asString());
            }
        }
        return queries;
    }
}
