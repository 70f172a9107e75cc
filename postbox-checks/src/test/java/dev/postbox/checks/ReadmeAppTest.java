package dev.postbox.checks;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * README.md's "A whole application" is {@code examples/readme-app}, file for file: every block marked
 * {@code <!-- file: PATH -->} equals that file, and {@code <!-- file: PATH#NAME -->} the region between the lines
 * {@code region NAME} and {@code endregion NAME} (in a {@code //} or {@code <!-- -->} comment), less what
 * {@code region-skip}/{@code endregion-skip} set aside, without its common indent. Every file of the application's
 * {@code src/main} is shown, so that the application is written from the README alone; its tests sleep nowhere; its two
 * Boot lines declare the same dependencies.
 */
class ReadmeAppTest {

    private static final String APP = "examples/readme-app";
    private static final Pattern SLEEP = Pattern.compile("\\bsleep\\s*\\(|\\bThread\\.onSpinWait|LockSupport\\.park");

    /** A block of a Markdown document marked with the file (and region) it shows. */
    record FileBlock(int fenceLine, String path, String region, String text) {
        String location() {
            return "README.md:" + fenceLine;
        }
    }

    static List<FileBlock> fileBlocks(String markdown) {
        List<String> all = markdown.lines().toList();
        List<FileBlock> out = new ArrayList<>();
        String previous = "";
        for (int i = 0; i < all.size(); i++) {
            String line = all.get(i);
            if (line.strip().startsWith("```")) {
                int end = i + 1;
                while (end < all.size() && !all.get(end).strip().equals("```")) {
                    end++;
                }
                Matcher f = JavaBlock.FILE.matcher(previous);
                if (f.matches()) {
                    String[] target = f.group(1).split("#", 2);
                    out.add(new FileBlock(i + 1, target[0], target.length > 1 ? target[1] : null,
                            String.join("\n", all.subList(i + 1, Math.min(end, all.size()))) + "\n"));
                }
                i = end;
                previous = "";
            } else if (!line.isBlank()) {
                previous = line.strip();
            }
        }
        return out;
    }

    /** The region {@code name} of {@code text}, as a README block shows it; fails naming what is missing. */
    static String region(String text, String name, String where) {
        List<String> lines = text.lines().toList();
        Pattern start = Pattern.compile("(//|<!--)\\s*region " + Pattern.quote(name) + "\\b");
        Pattern end = Pattern.compile("(//|<!--)\\s*endregion " + Pattern.quote(name) + "\\b");
        Pattern skipStart = Pattern.compile("(//|<!--)\\s*region-skip\\b");
        Pattern skipEnd = Pattern.compile("(//|<!--)\\s*endregion-skip\\b");
        int from = -1;
        int to = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (from < 0 && start.matcher(lines.get(i)).find()) {
                from = i;
            } else if (from >= 0 && end.matcher(lines.get(i)).find()) {
                to = i;
                break;
            }
        }
        if (from < 0 || to < 0) {
            throw new IllegalArgumentException(where + ": no region '" + name + "' (a line 'region " + name
                    + "' and a later 'endregion " + name + "' in a comment)");
        }
        List<String> kept = new ArrayList<>();
        boolean skipping = false;
        for (String l : lines.subList(from + 1, to)) {
            if (skipStart.matcher(l).find()) {
                skipping = true;
            } else if (skipEnd.matcher(l).find()) {
                skipping = false;
            } else if (!skipping) {
                kept.add(l);
            }
        }
        int indent = kept.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : kept) {
            b.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return b.toString();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> files(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyShownFileIsTheApplicationsFileAndEveryFileOfTheApplicationIsShown() {
        Path root = Readme.root();
        List<FileBlock> blocks = fileBlocks(Readme.text());
        assertThat(blocks).as("README.md's blocks marked <!-- file: ... -->").hasSizeGreaterThanOrEqualTo(6);
        Set<String> shown = new TreeSet<>();
        for (FileBlock b : blocks) {
            Path file = root.resolve(b.path());
            assertThat(file).as(b.location() + " shows " + b.path()).isRegularFile();
            String expected = b.region() == null ? read(file) : region(read(file), b.region(), b.path());
            assertThat(b.text()).as(b.location() + ": the block differs from " + b.path()
                    + (b.region() == null ? "" : " region " + b.region())
                    + "; change both, the README shows the file as it is").isEqualTo(expected);
            if (b.region() == null) {
                shown.add(b.path());
            }
        }
        Set<String> main = new TreeSet<>();
        for (Path p : files(root.resolve(APP + "/src/main"))) {
            main.add(root.relativize(p).toString().replace('\\', '/'));
        }
        assertThat(main).as("the application's files").isNotEmpty();
        assertThat(shown).as("every file of " + APP + "/src/main is shown whole in README.md (written from the README alone)")
                .containsAll(main);
    }

    @Test
    void theApplicationsTestsNeverSleep() {
        Map<String, Integer> sleeps = new LinkedHashMap<>();
        List<Path> tests = files(Readme.root().resolve(APP + "/src/test"));
        assertThat(tests).as("the application's tests").isNotEmpty();
        for (Path p : tests) {
            List<String> lines = read(p).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                if (SLEEP.matcher(lines.get(i)).find()) {
                    sleeps.put(Readme.root().relativize(p) + ":" + (i + 1), i + 1);
                }
            }
        }
        assertThat(sleeps.keySet()).as("sleeps in the application's tests: wait with PostboxAwait instead").isEmpty();
    }

    @Test
    void bothBootLinesDeclareTheDependenciesTheReadmeShows() {
        Path root = Readme.root();
        String boot35 = region(read(root.resolve(APP + "/boot-3.5/pom.xml")), "dependencies", "boot-3.5/pom.xml");
        String boot40 = region(read(root.resolve(APP + "/boot-4.0/pom.xml")), "dependencies", "boot-4.0/pom.xml");
        assertThat(boot35).isEqualTo(boot40);
        assertThat(read(root.resolve("pom.xml"))).as("the root POM builds both")
                .contains("<module>" + APP + "/boot-3.5</module>", "<module>" + APP + "/boot-4.0</module>");
    }

    @Test
    void aRegionIsCutAsTheReadmeShowsItAndAMissingOneIsNamed() {
        String source = """
                class A {
                    int hidden;
                    // region shown
                    int a;
                    // region-skip
                    int helper;
                    // endregion-skip

                    int b;
                    // endregion shown
                }
                """;
        assertThat(region(source, "shown", "A.java")).isEqualTo("int a;\n\nint b;\n");
        assertThatThrownBy(() -> region(source, "absent", "A.java")).hasMessageContaining("A.java: no region 'absent'");
        List<FileBlock> blocks = fileBlocks("""
                text
                <!-- file: x/A.java#shown -->
                ```java
                int a;
                ```
                ```java
                unmarked
                ```
                """);
        assertThat(blocks).containsExactly(new FileBlock(3, "x/A.java", "shown", "int a;\n"));
    }
}
