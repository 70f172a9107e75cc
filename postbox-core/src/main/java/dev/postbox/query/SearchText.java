package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The search language both tables share, read once: the tokens (qualifiers, quoted values, at most one bare
 * word), the common qualifiers and their checks. {@link SearchQuery} (the outbox) and {@link MessageSearchQuery}
 * (the message events) differ only in their {@link Language}: the qualifier of the business key
 * ({@code aggregate:} or {@code biz:}), the statuses, and whether {@code topic:} and {@code channel:} exist.
 */
final class SearchText {

    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:([A-Za-z_]+)(:|>=)(?:\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S*))|\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S+))");
    private static final Pattern AGO = Pattern.compile("(\\d{1,6})([smhd])");

    /**
     * One table's dialect of the language.
     *
     * @param key       the qualifier of the business key, also the field a bare word is reported as
     *                  ({@code aggregate} or {@code biz})
     * @param statuses  the status names in code order, upper case
     * @param routes    whether {@code topic:} and {@code channel:} exist (outbox events are published to one)
     */
    record Language(String key, List<String> statuses, boolean routes) {

        static final Language OUTBOX = new Language("aggregate",
                List.of("PENDING", "PUBLISHING", "PUBLISHED", "FAILED", "CANCELLED", "DEAD"), true);
        static final Language MESSAGE = new Language("biz",
                List.of("PENDING", "PROCESSING", "SUCCEEDED", "FAILED", "CANCELLED", "DEAD"), false);

        String known() {
            return "event_no:, " + key + ":, trace:, type:, status:, " + (routes ? "topic:, channel:, " : "")
                    + "after:, before:, error:, attempts>=";
        }
    }

    /** What a search says, before it becomes the table's query record; null fields are "any". */
    static final class Terms {
        String eventNo;
        String keyType;
        String key;
        String traceId;
        String eventType;
        final Set<String> statuses = new LinkedHashSet<>();
        String topic;
        String channel;
        Instant from;
        Instant before;
        String error;
        Integer attempts;
    }

    private SearchText() {
    }

    /** Reads {@code text} in {@code language}; relative times ({@code after:2h}) count back from {@code now}. */
    static Terms parse(String text, Instant now, Language language) {
        if (text == null || text.isBlank()) {
            throw new ValidationException("query", "is empty: give " + (language.routes() ? "an aggregate" : "a business")
                    + " id or a qualifier (event_no:, trace:, status:, type:, " + (language.routes() ? "topic:, " : "")
                    + "after:, ...)");
        }
        if (text.length() > SearchQuery.MAX_LENGTH) {
            throw new ValidationException("query", "must be at most " + SearchQuery.MAX_LENGTH + " characters (was "
                    + text.length() + ")");
        }
        Reader r = new Reader(language, now);
        Matcher m = TOKEN.matcher(text);
        int at = 0;
        while (at < text.length() && !text.substring(at).isBlank()) {
            if (!m.find(at) || m.start() != at) {
                throw new ValidationException("query", "cannot read the search at character " + at + ": \""
                        + clip(text.substring(at)) + "\"");
            }
            String bare = m.group(1) != null ? m.group(4) : m.group(6);
            if (bare != null && bare.startsWith("\"")) {
                throw new ValidationException("query", "cannot read the search at character " + (m.end() - bare.length())
                        + ": a quote that is not closed (\"" + clip(bare) + "\")");
            }
            at = m.end();
            if (m.group(1) != null) {
                String value = m.group(3) != null ? unquote(m.group(3)) : m.group(4);
                r.qualifier(m.group(1).toLowerCase(Locale.ROOT), m.group(2), value);
            } else {
                r.word(m.group(5) != null ? unquote(m.group(5)) : m.group(6));
            }
        }
        return r.terms;
    }

    /** Refuses a time range whose start is not before its end. */
    static void checkRange(Instant from, Instant before) {
        if (from != null && before != null && !from.isBefore(before)) {
            throw new ValidationException("after", "must be before 'before' (after " + from + ", before " + before + ")");
        }
    }

    /** A search written back in its canonical form; {@code statuses} are the lower-case names in code order. */
    static String write(Language language, String keyType, String key, String eventNo, String traceId,
                        String eventType, List<String> statuses, String topic, String channel, Instant from,
                        Instant before, String error, Integer attempts) {
        StringJoiner out = new StringJoiner(" ");
        if (key != null) {
            out.add(keyType == null ? quote(key) : language.key() + ":" + quote(keyType + "/" + key));
        }
        add(out, "event_no", eventNo);
        add(out, "trace", traceId);
        add(out, "type", eventType);
        if (!statuses.isEmpty()) {
            out.add("status:" + String.join(",", statuses));
        }
        add(out, "topic", topic);
        add(out, "channel", channel);
        add(out, "after", from == null ? null : from.toString());
        add(out, "before", before == null ? null : before.toString());
        add(out, "error", error);
        if (attempts != null) {
            out.add("attempts>=" + attempts);
        }
        return out.toString();
    }

    private static void add(StringJoiner out, String key, String value) {
        if (value != null) {
            out.add(key + ":" + quote(value));
        }
    }

    private static String quote(String value) {
        return value.isEmpty() || value.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"')
                ? "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : value;
    }

    private static String unquote(String quoted) {
        return quoted.replaceAll("\\\\(.)", "$1");
    }

    static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    private static final class Reader {
        private final Language language;
        private final Instant now;
        private final Terms terms = new Terms();
        private final List<String> seen = new ArrayList<>();

        Reader(Language language, Instant now) {
            this.language = language;
            this.now = now;
        }

        void word(String value) {
            once(language.key());
            terms.key = Check.key(language.key(), value, 64);
        }

        void qualifier(String key, String op, String value) {
            if (op.equals(">=") != key.equals("attempts")) {
                throw new ValidationException(key, key.equals("attempts") ? "is written attempts>=N"
                        : "is written " + key + ":value (only attempts takes >=)");
            }
            if (key.equals(language.key()) || key.equals("id")) {
                once(language.key());
                int slash = value.indexOf('/');
                if (key.equals(language.key()) && slash > 0) {
                    terms.keyType = Check.key(language.key(), value.substring(0, slash), 64);
                    terms.key = Check.key(language.key(), value.substring(slash + 1), 64);
                } else {
                    terms.key = Check.key(language.key(), value, 64);
                }
                return;
            }
            switch (key) {
                case "event_no", "no" -> {
                    once("event_no");
                    terms.eventNo = Check.key("event_no", value, 64);
                }
                case "trace" -> {
                    once("trace");
                    terms.traceId = Check.key("trace", value, 128);
                }
                case "type" -> {
                    once("type");
                    terms.eventType = Check.key("type", value, 64);
                }
                case "topic", "channel" -> {
                    if (!language.routes()) {
                        throw new ValidationException(key, "message events have no " + key + " (only outbox events are"
                                + " published to one); search message events by " + language.key() + ":TYPE/ID, event_no:,"
                                + " trace:, type:, status:, after:/before:, error: or attempts>=");
                    }
                    once(key);
                    if (key.equals("topic")) {
                        terms.topic = Check.key("topic", value, 128);
                    } else {
                        terms.channel = Check.key("channel", value, 32);
                    }
                }
                case "status" -> {
                    once("status");
                    for (String s : value.split(",", -1)) {
                        terms.statuses.add(status(s));
                    }
                }
                case "after" -> {
                    once("after");
                    terms.from = time("after", value);
                }
                case "before" -> {
                    once("before");
                    terms.before = time("before", value);
                }
                case "error" -> {
                    once("error");
                    terms.error = Check.required("error", value, 1000);
                }
                case "attempts" -> {
                    once("attempts");
                    try {
                        terms.attempts = Check.range("attempts", Integer.parseInt(value), 0, 1_000_000);
                    } catch (NumberFormatException e) {
                        throw new ValidationException("attempts", "must be a whole number 0..1000000 (was \"" + clip(value)
                                + "\")");
                    }
                }
                default -> throw new ValidationException("query", "unknown qualifier '" + key + ":'; known: "
                        + language.known());
            }
        }

        private void once(String key) {
            if (seen.contains(key)) {
                throw new ValidationException(key, "is given twice (every condition must hold: give it once)");
            }
            seen.add(key);
        }

        private String status(String s) {
            String name = s.trim().toUpperCase(Locale.ROOT);
            if (!language.statuses().contains(name)) {
                throw new ValidationException("status", "unknown status \"" + clip(s) + "\"; one of "
                        + String.join(", ", language.statuses()).toLowerCase(Locale.ROOT) + " (comma-separated)");
            }
            return name;
        }

        private Instant time(String key, String value) {
            Matcher ago = AGO.matcher(value);
            if (ago.matches()) {
                long n = Long.parseLong(ago.group(1));
                Duration d = switch (ago.group(2)) {
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
                return now.minus(d);
            }
            try {
                return value.length() == 10 ? LocalDate.parse(value).atStartOfDay().toInstant(ZoneOffset.UTC)
                        : Instant.parse(value);
            } catch (DateTimeParseException e) {
                throw new ValidationException(key, "must be a date (2026-12-01, UTC), an instant (2026-12-01T06:00:00Z)"
                        + " or a time ago (90s, 15m, 2h, 7d) (was \"" + clip(value) + "\")");
            }
        }
    }
}
