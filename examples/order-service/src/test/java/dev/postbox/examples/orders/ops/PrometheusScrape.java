package dev.postbox.examples.orders.ops;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one Prometheus text scrape holds: each sample name (a counter's {@code _total}, a histogram's
 * {@code _bucket}/{@code _count}/{@code _sum} as they appear) with the label names seen on it, and each family's type.
 */
record PrometheusScrape(Map<String, Set<String>> labelsBySample, Map<String, String> typeByFamily) {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");

    static PrometheusScrape parse(String text) {
        Map<String, Set<String>> labels = new TreeMap<>();
        Map<String, String> types = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                types.put(parts[2], parts[3]);
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.find()) {
                continue;
            }
            Set<String> names = labels.computeIfAbsent(m.group(1), n -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    names.add(l.group(1));
                }
            }
        }
        return new PrometheusScrape(labels, types);
    }

    boolean has(String sample) {
        return labelsBySample.containsKey(sample);
    }

    /** The label names on {@code sample}, empty if the scrape has no such sample. */
    Set<String> labels(String sample) {
        return labelsBySample.getOrDefault(sample, Set.of());
    }

    /**
     * What a missing {@code sample} is: its family if that is a histogram or summary the scrape has under another
     * sample name, else the sample itself (for the failure message).
     */
    String describeMissing(String sample) {
        for (String suffix : new String[] {"_bucket", "_count", "_sum", "_max"}) {
            if (sample.endsWith(suffix)) {
                String base = sample.substring(0, sample.length() - suffix.length());
                String type = typeByFamily.get(base);
                if (type != null) {
                    return sample + " (" + base + " is a " + type + " without that series)";
                }
            }
        }
        return sample;
    }
}
