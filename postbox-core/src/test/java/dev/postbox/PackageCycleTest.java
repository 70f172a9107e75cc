package dev.postbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps core's package graph acyclic, so that each package can be read, tested and changed from the
 * packages below it: the facade {@code dev.postbox} on top (nothing imports it), the kernel
 * {@code dev.postbox.common} at the bottom (it imports no other Postbox package).
 * <p>
 * The graph comes from the main sources: an edge for every import and every fully-qualified
 * {@code dev.postbox.x.Y} in code. Comments and string literals are blanked first, so a javadoc
 * {@code {@link}} is no dependency (javac does not need it to compile) and neither is a class name in a
 * message.
 */
class PackageCycleTest {

    private static final String ROOT = "dev.postbox";
    private static final String COMMON = "dev.postbox.common";
    private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.postbox((?:\\.[a-z_][a-z0-9_]*)*)\\.(?:[A-Z]\\w*|\\*)");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    /** Edges of the graph: from package, to package, then the first place ({@code file:line}) that makes it. */
    private static Map<String, Map<String, String>> graph(Path sources) {
        Map<String, Map<String, String>> graph = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String code = codeOnly(Files.readString(file));
                Matcher pm = PACKAGE.matcher(code);
                if (!pm.find()) {
                    continue;
                }
                String from = pm.group(1);
                graph.computeIfAbsent(from, k -> new TreeMap<>());
                String[] lines = code.split("\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    Matcher m = REFERENCE.matcher(lines[i]);
                    while (m.find()) {
                        String to = ROOT + m.group(1);
                        if (!to.equals(from)) {
                            graph.get(from).putIfAbsent(to, sources.relativize(file) + ":" + (i + 1));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return graph;
    }

    /**
     * The source with every comment, string, text block and char literal replaced by spaces (line breaks
     * kept, so that line numbers still match).
     */
    static String codeOnly(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        while (i < src.length()) {
            char c = src.charAt(i);
            String close = src.startsWith("/*", i) ? "*/"
                    : src.startsWith("//", i) ? "\n"
                    : src.startsWith("\"\"\"", i) ? "\"\"\""
                    : c == '"' ? "\""
                    : c == '\'' ? "'"
                    : null;
            if (close == null) {
                out.append(c);
                i++;
                continue;
            }
            boolean literal = close.startsWith("\"") || close.equals("'");
            int j = i + (close.equals("\n") ? 2 : close.length());
            while (j < src.length() && !src.startsWith(close, j)) {
                j += literal && src.charAt(j) == '\\' ? 2 : 1;
            }
            int end = close.equals("\n") ? j : Math.min(src.length(), j + close.length());
            for (int k = i; k < end; k++) {
                out.append(src.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }

    /**
     * One cycle of {@code graph} as the packages on it, the first repeated at the end ({@code [a, b, a]}),
     * or an empty list when the graph is acyclic. Depth-first in name order, so the answer is stable.
     */
    static List<String> findCycle(Map<String, ? extends Collection<String>> graph) {
        Map<String, Integer> state = new HashMap<>(); // absent: not seen, 1: on the path, 2: done
        List<String> path = new ArrayList<>();
        for (String start : new TreeSet<>(graph.keySet())) {
            List<String> cycle = visit(start, graph, state, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> visit(String node, Map<String, ? extends Collection<String>> graph,
                                      Map<String, Integer> state, List<String> path) {
        Integer s = state.get(node);
        if (s != null && s == 2) {
            return List.of();
        }
        if (s != null) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(node), path.size()));
            cycle.add(node);
            return cycle;
        }
        state.put(node, 1);
        path.add(node);
        Collection<String> successors = graph.get(node);
        for (String next : successors == null ? List.<String>of() : new TreeSet<>(successors)) {
            List<String> cycle = visit(next, graph, state, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        path.remove(path.size() - 1);
        state.put(node, 2);
        return List.of();
    }

    private static Map<String, Set<String>> successors(Map<String, Map<String, String>> graph) {
        Map<String, Set<String>> successors = new TreeMap<>();
        graph.forEach((from, edges) -> successors.put(from, edges.keySet()));
        return successors;
    }

    private static String describe(List<String> cycle, Map<String, Map<String, String>> graph) {
        StringBuilder sb = new StringBuilder("package cycle: ").append(String.join(" -> ", cycle));
        for (int i = 0; i + 1 < cycle.size(); i++) {
            String from = cycle.get(i);
            String to = cycle.get(i + 1);
            sb.append("\n  ").append(from).append(" -> ").append(to).append(": ").append(graph.get(from).get(to));
        }
        return sb.toString();
    }

    private static Map<String, Map<String, String>> mainGraph() {
        Path main = Path.of(System.getProperty("basedir", "."), "src", "main", "java");
        assertThat(main.resolve("dev/postbox/Postbox.java")).as("core's main sources").exists();
        return graph(main);
    }

    @Test
    void coresPackagesFormNoCycle() {
        Map<String, Map<String, String>> graph = mainGraph();
        assertThat(graph).as("packages found").containsKeys(ROOT, COMMON, "dev.postbox.outbox", "dev.postbox.relay");
        List<String> cycle = findCycle(successors(graph));
        assertThat(cycle).as(() -> describe(cycle, graph)).isEmpty();
    }

    @Test
    void nothingImportsTheFacadeAndTheKernelImportsNoPostboxPackage() {
        Map<String, Map<String, String>> graph = mainGraph();
        Map<String, String> intoRoot = new TreeMap<>();
        graph.forEach((from, edges) -> {
            if (edges.containsKey(ROOT)) {
                intoRoot.put(from, edges.get(ROOT));
            }
        });
        assertThat(intoRoot).as("packages that depend on the facade package " + ROOT).isEmpty();
        assertThat(graph.get(COMMON)).as("Postbox packages " + COMMON + " depends on").isEmpty();
    }

    @Test
    void theInternalHelpersMapNoFeatureTable() {
        Map<String, String> internal = mainGraph().get("dev.postbox.internal");
        assertThat(internal).as("dev.postbox.internal depends on").doesNotContainKeys("dev.postbox.outbox", "dev.postbox.message");
    }

    @Test
    void theCycleFinderNamesACycleAndPassesAnAcyclicGraph() {
        Map<String, List<String>> cyclic = Map.of(
                "a", List.of("b", "d"),
                "b", List.of("c"),
                "c", List.of("a", "d"),
                "d", List.of());
        assertThat(findCycle(cyclic)).containsExactly("a", "b", "c", "a");
        assertThat(findCycle(Map.of("x", List.of("x")))).containsExactly("x", "x");

        Map<String, List<String>> acyclic = Map.of(
                "a", List.of("b", "c"),
                "b", List.of("c"),
                "c", List.of("d"));
        assertThat(findCycle(acyclic)).isEmpty();
    }

    @Test
    void theScanCountsImportsAndQualifiedNamesInCodeButNotCommentsOrStrings(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("dev/postbox/a"));
        Files.createDirectories(dir.resolve("dev/postbox/b"));
        Files.writeString(dir.resolve("dev/postbox/a/A.java"), """
                package dev.postbox.a;

                import dev.postbox.b.B;

                /** Uses {@link dev.postbox.c.C} in a comment only. */
                class A {
                    // dev.postbox.d.D is a comment too
                    String s = "dev.postbox.e.E is a string";
                    char q = '"';
                    Object o = new dev.postbox.f.F();
                }
                """);
        Files.writeString(dir.resolve("dev/postbox/b/B.java"), """
                package dev.postbox.b;

                import static dev.postbox.a.A.CONSTANT;

                class B {
                }
                """);
        Map<String, Map<String, String>> graph = graph(dir);
        assertThat(graph.get("dev.postbox.a")).containsOnlyKeys("dev.postbox.b", "dev.postbox.f");
        assertThat(graph.get("dev.postbox.a").get("dev.postbox.f")).isEqualTo(Path.of("dev/postbox/a/A.java") + ":10");
        List<String> cycle = findCycle(successors(graph));
        assertThat(cycle).containsExactly("dev.postbox.a", "dev.postbox.b", "dev.postbox.a");
        assertThat(describe(cycle, graph)).contains("dev.postbox.b -> dev.postbox.a: " + Path.of("dev/postbox/b/B.java") + ":3");
    }
}
