package dev.postbox.checks;

import java.io.File;
import java.util.Arrays;

/** The test class path as a compiler option: Surefire's, which its manifest-only jar hides from java.class.path. */
final class TestClassPath {

    private TestClassPath() {
    }

    static String get() {
        String path = System.getProperty("surefire.test.class.path");
        if (path == null || path.isBlank()) {
            path = System.getProperty("java.class.path");
        }
        boolean hasCore = Arrays.stream(path.split(File.pathSeparator))
                .anyMatch(e -> e.contains("postbox-core"));
        if (!hasCore) {
            throw new IllegalStateException("postbox-core is not on the class path the snippets compile against: " + path);
        }
        return path;
    }
}
