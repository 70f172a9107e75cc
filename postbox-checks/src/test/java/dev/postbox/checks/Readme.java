package dev.postbox.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root (system property {@code postbox.root}, set by this module's POM) and its README.md. */
final class Readme {

    private Readme() {
    }

    static Path root() {
        String root = System.getProperty("postbox.root");
        if (root == null) {
            throw new IllegalStateException("system property postbox.root (the repository's root) is not set;"
                    + " run the tests through Maven");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    static String text() {
        try {
            return Files.readString(root().resolve("README.md"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
