package dev.postbox.cli;

/**
 * Why a command stopped, as the person at the terminal should read it, with the process's exit code
 * ({@link ExitCode}). The console's own errors carry its message and, for bad input, the field it named.
 */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final int httpStatus;
    private final String field;

    CliException(int exitCode, String message) {
        this(exitCode, message, 0, null);
    }

    CliException(int exitCode, String message, int httpStatus, String field) {
        super(message);
        this.exitCode = exitCode;
        this.httpStatus = httpStatus;
        this.field = field;
    }

    int exitCode() {
        return exitCode;
    }

    /** The console's HTTP status, 0 when the request never got an answer (or there was none). */
    int httpStatus() {
        return httpStatus;
    }

    /** The input field the console refused, or null. */
    String field() {
        return field;
    }
}
