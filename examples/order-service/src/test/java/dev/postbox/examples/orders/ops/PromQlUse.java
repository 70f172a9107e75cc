package dev.postbox.examples.orders.ops;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Postbox metrics a PromQL expression (an alert rule's, a Grafana target's or a variable's query) reads, and
 * which label names it expects on each: those of its matchers ({@code postbox_x{status="dead"}}), of the
 * {@code by (...)} of any aggregation around it, and of a {@code label_values(metric, label)}. Not a PromQL parser:
 * it reads the shapes the ops/ artifacts use.
 */
final class PromQlUse {

    private static final Pattern METRIC = Pattern.compile("\\bpostbox_[a-z0-9_]+");
    private static final Pattern MATCHER_LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern BY = Pattern.compile("\\b(?:sum|max|min|avg|count)\\s+by\\s*\\(([^)]*)\\)\\s*\\(");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*(postbox_[a-z0-9_]+)[^,]*,\\s*(\\w+)\\s*\\)");

    private PromQlUse() {
    }

    /** Every metric {@code expr} names, with the label names it uses on it. */
    static Map<String, Set<String>> labelsByMetric(String expr) {
        Map<String, Set<String>> used = new TreeMap<>();
        Matcher metric = METRIC.matcher(expr);
        while (metric.find()) {
            Set<String> labels = used.computeIfAbsent(metric.group(), m -> new TreeSet<>());
            if (metric.end() < expr.length() && expr.charAt(metric.end()) == '{') {
                String matchers = expr.substring(metric.end() + 1, expr.indexOf('}', metric.end()));
                Matcher l = MATCHER_LABEL.matcher(matchers.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\""));
                while (l.find()) {
                    labels.add(l.group(1));
                }
            }
        }
        Matcher by = BY.matcher(expr);
        while (by.find()) {
            String argument = expr.substring(by.end(), closing(expr, by.end() - 1));
            Set<String> labels = new TreeSet<>();
            for (String label : by.group(1).split(",")) {
                labels.add(label.trim());
            }
            Matcher inner = METRIC.matcher(argument);
            while (inner.find()) {
                used.get(inner.group()).addAll(labels);
            }
        }
        Matcher values = LABEL_VALUES.matcher(expr);
        while (values.find()) {
            used.get(values.group(1)).add(values.group(2));
        }
        return used;
    }

    private static int closing(String expr, int open) {
        int depth = 0;
        for (int i = open; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("unbalanced parentheses after " + open + " in " + expr);
    }
}
