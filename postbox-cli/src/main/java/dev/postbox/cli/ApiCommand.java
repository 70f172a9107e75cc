package dev.postbox.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * A subcommand that talks to the console: its client, output streams and output mode come from the
 * {@code postbox} command it runs under. A {@link CliException} ends it with that exception's exit code.
 */
abstract class ApiCommand implements Callable<Integer> {

    /** Which event table a command addresses; the API's {@code kind}. */
    enum Kind { outbox, message }

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        return execute(root().client(err()));
    }

    /** Does the command's work; returns the exit code. */
    abstract int execute(ConsoleClient console);

    PostboxCli root() {
        return (PostboxCli) spec.root().userObject();
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    boolean json() {
        return root().output() == PostboxCli.Output.json;
    }

    /** One JSON document on standard output. */
    void printJson(Object doc) {
        out().println(Json.write(doc));
        out().flush();
    }

    /** A line on standard error: what a person should know that is not the command's data (warnings, progress). */
    void note(String line) {
        err().println(line);
        err().flush();
    }

    /** A usage error naming {@code option}: exit code {@link ExitCode#USAGE}. */
    static CliException usage(String option, String message) {
        return new CliException(ExitCode.USAGE, option + ": " + message);
    }
}
