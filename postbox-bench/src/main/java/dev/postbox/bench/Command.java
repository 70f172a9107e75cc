package dev.postbox.bench;

import java.util.Map;

/**
 * One {@code scripts/bench} subcommand: its options with defaults, and the run that ends with the RESULT
 * line. {@link Scenario}s run on a throw-away database of the shared services; {@link ChaosBench} runs its
 * own private database server.
 */
interface Command {

    /** What one run produced: the RESULT line, and whether every check passed (exit code 0). */
    record Outcome(String result, boolean ok) {
    }

    String name();

    /** Every option with its default, in the order PARAMS prints them. */
    Map<String, String> defaults();

    /** Checks option values before any database work. */
    default void validate(Options options) {
    }

    /** Runs after PARAMS was printed; prints the DB and CEILING lines and progress, returns the RESULT line. */
    Outcome run(Options options) throws Exception;
}
