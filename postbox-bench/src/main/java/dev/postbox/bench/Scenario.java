package dev.postbox.bench;

import java.util.Map;

/** One subcommand: its options with defaults, and the run that ends with the RESULT line. */
interface Scenario {

    /** What one run produced: the RESULT line, and whether every check passed (exit code 0). */
    record Outcome(String result, boolean ok) {
    }

    String name();

    /** Every option with its default, in the order PARAMS prints them. */
    Map<String, String> defaults();

    /** Checks option values before any database work. */
    default void validate(Options options) {
    }

    /** Connections of the application's pool (producers). */
    int poolSize(Options options);

    /**
     * Whether writers NOTIFY and relays LISTEN on PostgreSQL; default true, Postbox's own default (ignored on
     * the other databases).
     */
    default boolean notifications(Options options) {
        return true;
    }

    /** Runs on a fresh database whose ceiling was just measured. */
    Outcome run(BenchContext ctx, Options options, Ceiling.Result ceiling) throws Exception;
}
