package dev.postbox.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The UI's files, read once from the jar ({@code dev/postbox/console/ui/}). Only names of a strict form are
 * looked up (at most two folders, lower-case letters, digits and dashes, a known extension), so no request can
 * reach another resource of the class path.
 */
final class StaticFiles {

    static final String ROOT = "dev/postbox/console/ui/";
    private static final Pattern NAME = Pattern.compile("(?:[a-z0-9-]+/){0,2}[a-z0-9-]+\\.(html|js|css|svg|png|ico)");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon");

    private final Map<String, Optional<Reply>> cache = new ConcurrentHashMap<>();

    /** The file {@code name} below the UI's root, e.g. {@code index.html} or {@code assets/app.js}. */
    Optional<Reply> get(String name) {
        var m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        String type = TYPES.get(m.group(1));
        return cache.computeIfAbsent(name, n -> load(n, type));
    }

    private static Optional<Reply> load(String name, String type) {
        ClassLoader loader = StaticFiles.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                return Optional.empty();
            }
            return Optional.of(new Reply(200, type, in.readAllBytes(), "no-cache"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console's " + name, e);
        }
    }
}
