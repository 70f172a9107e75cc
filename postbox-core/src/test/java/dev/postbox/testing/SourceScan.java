package dev.postbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The plain source-text scan behind the modules' source-rule tests (a comment counts too): the Java files
 * under a module's main source directory, and the lines of a file that match a forbidden pattern.
 */
public final class SourceScan {

    /** Matches {@code new Thread(} however it is spaced. */
    public static final Pattern NEW_THREAD = Pattern.compile("new\\s+Thread\\s*\\(");

    private SourceScan() {
    }

    /** The {@code .java} files under {@code dir} (relative to the module: the tests' working directory), sorted. */
    public static List<Path> sources(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir.toAbsolutePath(), e);
        }
    }

    /** One {@code file:line: why: text} per line of {@code lines} that matches {@code forbidden}. */
    public static List<String> matches(String file, List<String> lines, Pattern forbidden, String why) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (forbidden.matcher(lines.get(i)).find()) {
                found.add(file + ":" + (i + 1) + ": " + why + ": " + lines.get(i).strip());
            }
        }
        return found;
    }

    /** {@link #matches} over every source under {@code dir}. */
    public static List<String> violations(Path dir, Pattern forbidden, String why) {
        List<String> found = new ArrayList<>();
        for (Path p : sources(dir)) {
            try {
                found.addAll(matches(p.getFileName().toString(), Files.readAllLines(p), forbidden, why));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + p, e);
            }
        }
        return found;
    }

    /**
     * Asserts that the scan of {@code dir} sees {@code expectedFile} (so a moved directory cannot pass
     * by scanning nothing) and that no source under it starts a thread of its own ({@link #NEW_THREAD}).
     */
    public static void assertNoThreadsOfTheirOwn(Path dir, String expectedFile) {
        List<String> names = sources(dir).stream().map(p -> p.getFileName().toString()).toList();
        if (!names.contains(expectedFile)) {
            throw new AssertionError("the scan of " + dir.toAbsolutePath() + " does not see " + expectedFile + ": " + names);
        }
        List<String> broken = violations(dir, NEW_THREAD, "new Thread( (run the loop on PollLoop)");
        if (!broken.isEmpty()) {
            throw new AssertionError("threads of their own in " + dir + ":\n" + String.join("\n", broken));
        }
    }
}
