package dev.postbox.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * Reading fields of the parsed JSON ({@link Json}) leniently: a missing field, or a document of another
 * shape, reads as null / empty / the default, so a console that adds fields never breaks the CLI, and
 * the formatting of times, ages and long text for tables.
 */
final class Fields {

    private Fields() {
    }

    static Map<?, ?> obj(Object doc, String key) {
        Object v = get(doc, key);
        return v instanceof Map<?, ?> m ? m : Map.of();
    }

    static List<?> list(Object doc, String key) {
        Object v = get(doc, key);
        return v instanceof List<?> l ? l : List.of();
    }

    /** The field as text ({@code null} when absent or JSON null). */
    static String text(Object doc, String key) {
        Object v = get(doc, key);
        return v == null ? null : v instanceof Map || v instanceof List ? Json.write(v) : v.toString();
    }

    static long number(Object doc, String key, long otherwise) {
        Object v = get(doc, key);
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                return otherwise;
            }
        }
        return otherwise;
    }

    static boolean flag(Object doc, String key) {
        Object v = get(doc, key);
        return Boolean.TRUE.equals(v) || "true".equals(v);
    }

    /** A dotted path ({@code "outbox.dead"}) into nested objects. */
    static Object get(Object doc, String path) {
        Object cur = doc;
        for (String part : path.split("\\.")) {
            if (!(cur instanceof Map<?, ?> m)) {
                return null;
            }
            cur = m.get(part);
        }
        return cur;
    }

    static Instant instant(Object doc, String key) {
        Object v = get(doc, key);
        if (v instanceof String s && !s.isBlank()) {
            try {
                return Instant.parse(s);
            } catch (DateTimeParseException e) {
                return null;
            }
        }
        if (v instanceof Number n) {
            return Instant.ofEpochMilli(n.longValue());
        }
        return null;
    }

    /** An instant as {@code 2026-12-04 02:41:24Z} (UTC, seconds), or "-". */
    static String time(Instant t) {
        if (t == null) {
            return "-";
        }
        return t.truncatedTo(ChronoUnit.SECONDS).toString().replace('T', ' ');
    }

    static String time(Object doc, String key) {
        Instant t = instant(doc, key);
        return t != null ? time(t) : orDash(text(doc, key));
    }

    /** A duration as {@code 3d4h}, {@code 2h5m}, {@code 4m10s}, {@code 12s} or {@code 350ms}. */
    static String age(Duration d) {
        if (d == null) {
            return "-";
        }
        if (d.isNegative()) {
            d = Duration.ZERO;
        }
        long s = d.getSeconds();
        if (s == 0) {
            return d.toMillis() + "ms";
        }
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + (s % 60 > 0 ? s % 60 + "s" : "");
        }
        if (s < 86_400) {
            return s / 3600 + "h" + (s % 3600 / 60 > 0 ? s % 3600 / 60 + "m" : "");
        }
        return s / 86_400 + "d" + (s % 86_400 / 3600 > 0 ? s % 86_400 / 3600 + "h" : "");
    }

    /** One line of at most {@code max} characters: line breaks become spaces, the cut is marked with "...". */
    static String clip(String s, int max) {
        if (s == null) {
            return "-";
        }
        String line = s.replaceAll("\\s+", " ").trim();
        if (line.length() <= max) {
            return line;
        }
        return line.substring(0, Math.max(0, max - 3)) + "...";
    }

    static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }
}
