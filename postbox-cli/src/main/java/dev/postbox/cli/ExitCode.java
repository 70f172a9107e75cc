package dev.postbox.cli;

/**
 * The {@code postbox} command's exit codes, for scripts and monitoring (README, "CLI"). Each is also
 * listed in {@code postbox --help}.
 */
final class ExitCode {

    /** The command did what it was asked (an action that found nothing to change also ends with 0). */
    static final int OK = 0;
    /** Something went wrong: the console is unreachable, answered with an error, or a bulk action failed. */
    static final int ERROR = 1;
    /** The command line, or input the console refused as bad (the message names the option or field). */
    static final int USAGE = 2;
    /** {@code status} only: the console reports at least one CRITICAL problem. */
    static final int PROBLEMS = 3;
    /** The event, bulk run or audit entry asked for does not exist. */
    static final int NOT_FOUND = 4;
    /** The console refused the credentials (401) or the operator lacks the permission (403), or is read-only. */
    static final int DENIED = 5;

    private ExitCode() {
    }
}
