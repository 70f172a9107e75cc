package dev.postbox.server.config;

import java.util.List;

/**
 * A configuration file that cannot be used: every problem found, each as {@code key: problem} naming the key by its
 * path in the file ({@code sources.orders.relay.batch-size}, {@code routes[2].destination}). Nothing was started.
 */
public final class ConfigException extends RuntimeException {

    private final transient List<String> problems;

    public ConfigException(String file, List<String> problems) {
        super(message(file, problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem, {@code key: problem}, in the file's order. */
    public List<String> problems() {
        return problems;
    }

    private static String message(String file, List<String> problems) {
        StringBuilder b = new StringBuilder(file).append(": ").append(problems.size())
                .append(problems.size() == 1 ? " problem" : " problems");
        for (String p : problems) {
            b.append("\n  ").append(p);
        }
        return b.toString();
    }
}
