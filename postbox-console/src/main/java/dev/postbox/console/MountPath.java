package dev.postbox.console;

import dev.postbox.common.ValidationException;

/** A console's mount path: {@code /postbox}, {@code /ops/console}, or {@code ""} for the root; checked once. */
final class MountPath {

    private MountPath() {
    }

    /** {@code path} without a trailing slash ({@code /} becomes {@code ""}); refused unless plain segments. */
    static String normalize(String path) {
        if (path == null) {
            throw new ValidationException("path", "is required, e.g. " + ConsoleApi.DEFAULT_MOUNT_PATH);
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (!p.isEmpty() && (!p.matches("(/[A-Za-z0-9._~-]+)+") || p.matches(".*/\\.{1,2}(/.*)?"))) {
            throw new ValidationException("path", "must be / or slash-separated segments of letters, digits and"
                    + " . _ ~ - (not . or ..; was \"" + path + "\")");
        }
        return p;
    }
}
