package dev.postbox.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code --name value} options of one subcommand. Every option a scenario accepts is declared with its
 * default, so unknown or misspelt options fail instead of being ignored, and {@link #describe()} prints
 * the effective values.
 */
final class Options {

    private final Map<String, String> values;

    private Options(Map<String, String> values) {
        this.values = values;
    }

    /** Parses {@code args} ({@code --name value} or {@code --name=value}) against {@code defaults}. */
    static Options parse(List<String> args, Map<String, String> defaults) {
        Map<String, String> values = new LinkedHashMap<>(defaults);
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() < 3) {
                throw new UsageException("expected an option --name, got '" + arg + "'");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException("option --" + name + " needs a value");
            }
            if (!defaults.containsKey(name)) {
                throw new UsageException("unknown option --" + name + "; this command takes "
                        + defaults.keySet().stream().map(k -> "--" + k).collect(Collectors.joining(" ")));
            }
            values.put(name, value);
        }
        return new Options(values);
    }

    String string(String name) {
        String v = values.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("option --" + name + " is required");
        }
        return v;
    }

    int positiveInt(String name) {
        return (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(name, 1));
    }

    int nonNegativeInt(String name) {
        return (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(name, 0));
    }

    private long nonNegativeLong(String name, long min) {
        String v = string(name).replace("_", "");
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be a whole number (was '" + v + "')");
        }
        if (n < min || n > Integer.MAX_VALUE) {
            throw new UsageException("option --" + name + " must be between " + min + " and " + Integer.MAX_VALUE
                    + " (was " + n + ")");
        }
        return n;
    }

    /**
     * A comma-separated list of whole numbers from 1 to {@code max}, e.g. {@code 16,64}: at least one, each
     * at most once, kept in the order given.
     */
    List<Integer> positiveIntList(String name, int max) {
        List<Integer> out = new ArrayList<>();
        for (String part : string(name).split(",", -1)) {
            String v = part.strip().replace("_", "");
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new UsageException("option --" + name + " must be a comma-separated list of whole numbers (was '"
                        + string(name) + "')");
            }
            if (n < 1 || n > max) {
                throw new UsageException("option --" + name + ": each value must be between 1 and " + max + " (was " + n + ")");
            }
            if (out.contains(n)) {
                throw new UsageException("option --" + name + " lists " + n + " twice");
            }
            out.add(n);
        }
        return out;
    }

    /** {@code on} or {@code off}. */
    boolean onOff(String name) {
        return switch (string(name)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new UsageException("option --" + name + " must be on or off (was '" + string(name) + "')");
        };
    }

    /** {@code name=value} pairs of every option, in declaration order. */
    String describe() {
        return values.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }
}
