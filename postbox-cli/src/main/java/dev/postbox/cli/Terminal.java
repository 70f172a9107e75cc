package dev.postbox.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * What the CLI reads besides its arguments: environment variables, standard input and, when there is
 * one, the terminal a person types at (for a bulk confirmation and a password prompt). Tests give their
 * own; {@link #system()} is the process's.
 */
interface Terminal {

    /** The environment variable, or null. */
    String env(String name);

    /** Standard input (for {@code --password-stdin}). */
    InputStream stdin();

    /** True when a person can answer a question: standard input and output are a terminal. */
    boolean interactive();

    /** Asks on the terminal and returns the line typed (null at end of input); only when {@link #interactive()}. */
    String ask(String prompt);

    /** Asks without echo; only when {@link #interactive()}. */
    char[] askSecret(String prompt);

    /** The process's environment, standard input and {@link System#console()}. */
    static Terminal system() {
        return new Terminal() {
            @Override
            public String env(String name) {
                return System.getenv(name);
            }

            @Override
            public InputStream stdin() {
                return System.in;
            }

            @Override
            public boolean interactive() {
                // Java 17: System.console() is null unless stdin and stdout are both a terminal
                return System.console() != null;
            }

            @Override
            public String ask(String prompt) {
                Console c = System.console();
                return c == null ? null : c.readLine("%s", prompt);
            }

            @Override
            public char[] askSecret(String prompt) {
                Console c = System.console();
                return c == null ? null : c.readPassword("%s", prompt);
            }
        };
    }

    /** The first line of {@code in}, without its line break; empty when there is none. */
    static String firstLine(InputStream in) {
        try {
            String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            return line == null ? "" : line;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
