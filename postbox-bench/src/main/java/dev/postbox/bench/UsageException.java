package dev.postbox.bench;

/** A bad command line: printed with the usage, exit code 2. */
final class UsageException extends RuntimeException {

    UsageException(String message) {
        super(message);
    }
}
