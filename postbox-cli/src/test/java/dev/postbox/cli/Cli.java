package dev.postbox.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the {@code postbox} command in the test's JVM exactly as {@code main} does, with an environment, standard
 * input and terminal of the test's choosing, and captures what it prints.
 */
final class Cli {

    /** What one run printed and returned. */
    record Result(int exitCode, String out, String err) {
        /** Standard output parsed as the one JSON document it must be. */
        Object json() {
            return Json.parse(out);
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env = new HashMap<>();
    private String stdin = "";
    private boolean interactive;
    private final List<String> answers = new ArrayList<>();
    private final List<String> prompts = new ArrayList<>();

    Cli env(String name, String value) {
        env.put(name, value);
        return this;
    }

    Cli stdin(String text) {
        this.stdin = text;
        return this;
    }

    /** Standard input is a terminal on which a person types {@code typed}, one answer per question. */
    Cli terminal(String... typed) {
        this.interactive = true;
        this.answers.addAll(List.of(typed));
        return this;
    }

    /** The questions the command asked on the terminal. */
    List<String> prompts() {
        return prompts;
    }

    Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = PostboxCli.run(args, terminal(), new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    private Terminal terminal() {
        InputStream in = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
        return new Terminal() {
            @Override
            public String env(String name) {
                return env.get(name);
            }

            @Override
            public InputStream stdin() {
                return in;
            }

            @Override
            public boolean interactive() {
                return interactive;
            }

            @Override
            public String ask(String prompt) {
                prompts.add(prompt);
                return answers.isEmpty() ? null : answers.remove(0);
            }

            @Override
            public char[] askSecret(String prompt) {
                String a = ask(prompt);
                return a == null ? null : a.toCharArray();
            }
        };
    }
}
