package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.outbox.OutboxStatus;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A search of the outbox as a person types it: qualifiers, every one of which must hold, and at most one bare
 * word, the aggregate (business) id, e.g. an order number:
 *
 * <pre>
 *   ORD-1042                         aggregate id (of any aggregate type)
 *   aggregate:ORDER/ORD-1042         aggregate type and id
 *   event_no:E-77  trace:4bf92f35    idempotency key, trace id
 *   type:ORDER_PAID  topic:orders  channel:MQ
 *   status:dead,failed               one or more statuses
 *   after:2026-12-01  before:2026-12-02T06:00:00Z  after:2h   created in that range (a duration: that long ago)
 *   error:"connection refused"       text of the last failure, case-insensitive
 *   attempts>=3                      failed attempts so far
 * </pre>
 *
 * Values with spaces are quoted ({@code "..."}, a {@code \"} inside). A bad qualifier fails with a
 * {@link ValidationException} naming it and what it accepts. Null fields are "any".
 */
public record SearchQuery(String eventNo, String aggregateType, String aggregateId, String traceId, String eventType,
                          Set<OutboxStatus> statuses, String topic, String channel, Instant createdFrom,
                          Instant createdBefore, String errorText, Integer minAttempts) {

    /** The longest search text accepted. */
    public static final int MAX_LENGTH = 2000;

    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:([A-Za-z_]+)(:|>=)(?:\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S*))|\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S+))");
    private static final Pattern AGO = Pattern.compile("(\\d{1,6})([smhd])");

    public SearchQuery {
        statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        if (createdFrom != null && createdBefore != null && !createdFrom.isBefore(createdBefore)) {
            throw new ValidationException("after", "must be before 'before' (after " + createdFrom + ", before "
                    + createdBefore + ")");
        }
    }

    /** Every condition of {@code text}; relative times ({@code after:2h}) count back from {@code now}. */
    public static SearchQuery parse(String text, Instant now) {
        if (text == null || text.isBlank()) {
            throw new ValidationException("query", "is empty: give an aggregate id or a qualifier (event_no:, trace:,"
                    + " status:, type:, topic:, after:, ...)");
        }
        if (text.length() > MAX_LENGTH) {
            throw new ValidationException("query", "must be at most " + MAX_LENGTH + " characters (was " + text.length() + ")");
        }
        Builder b = new Builder();
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
                b.qualifier(m.group(1).toLowerCase(Locale.ROOT), m.group(2), value, now);
            } else {
                b.word(m.group(5) != null ? unquote(m.group(5)) : m.group(6));
            }
        }
        return b.build();
    }

    /** Whether {@code status} is allowed by this search (every status when none is given). */
    boolean allows(OutboxStatus status) {
        return statuses.isEmpty() || statuses.contains(status);
    }

    /** The search written back in its canonical form (what {@link #parse} reads as this search). */
    @Override
    public String toString() {
        StringJoiner out = new StringJoiner(" ");
        if (aggregateId != null) {
            out.add(aggregateType == null ? quote(aggregateId) : "aggregate:" + quote(aggregateType + "/" + aggregateId));
        }
        add(out, "event_no", eventNo);
        add(out, "trace", traceId);
        add(out, "type", eventType);
        if (!statuses.isEmpty()) {
            out.add("status:" + String.join(",", statuses.stream().sorted()
                    .map(s -> s.name().toLowerCase(Locale.ROOT)).toList()));
        }
        add(out, "topic", topic);
        add(out, "channel", channel);
        add(out, "after", createdFrom == null ? null : createdFrom.toString());
        add(out, "before", createdBefore == null ? null : createdBefore.toString());
        add(out, "error", errorText);
        if (minAttempts != null) {
            out.add("attempts>=" + minAttempts);
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

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    private static final class Builder {
        private String eventNo;
        private String aggregateType;
        private String aggregateId;
        private String traceId;
        private String eventType;
        private final Set<OutboxStatus> statuses = EnumSet.noneOf(OutboxStatus.class);
        private String topic;
        private String channel;
        private Instant from;
        private Instant before;
        private String error;
        private Integer attempts;
        private final List<String> seen = new ArrayList<>();

        void word(String value) {
            once("aggregate");
            aggregateId = Check.key("aggregate", value, 64);
        }

        void qualifier(String key, String op, String value, Instant now) {
            if (op.equals(">=") != key.equals("attempts")) {
                throw new ValidationException(key, key.equals("attempts") ? "is written attempts>=N"
                        : "is written " + key + ":value (only attempts takes >=)");
            }
            switch (key) {
                case "event_no", "no" -> {
                    once("event_no");
                    eventNo = Check.key("event_no", value, 64);
                }
                case "aggregate", "id" -> {
                    once("aggregate");
                    int slash = value.indexOf('/');
                    if (key.equals("aggregate") && slash > 0) {
                        aggregateType = Check.key("aggregate", value.substring(0, slash), 64);
                        aggregateId = Check.key("aggregate", value.substring(slash + 1), 64);
                    } else {
                        aggregateId = Check.key("aggregate", value, 64);
                    }
                }
                case "trace" -> {
                    once("trace");
                    traceId = Check.key("trace", value, 128);
                }
                case "type" -> {
                    once("type");
                    eventType = Check.key("type", value, 64);
                }
                case "topic" -> {
                    once("topic");
                    topic = Check.key("topic", value, 128);
                }
                case "channel" -> {
                    once("channel");
                    channel = Check.key("channel", value, 32);
                }
                case "status" -> {
                    once("status");
                    for (String s : value.split(",", -1)) {
                        statuses.add(status(s));
                    }
                }
                case "after" -> {
                    once("after");
                    from = time("after", value, now);
                }
                case "before" -> {
                    once("before");
                    before = time("before", value, now);
                }
                case "error" -> {
                    once("error");
                    error = Check.required("error", value, 1000);
                }
                case "attempts" -> {
                    once("attempts");
                    try {
                        attempts = Check.range("attempts", Integer.parseInt(value), 0, 1_000_000);
                    } catch (NumberFormatException e) {
                        throw new ValidationException("attempts", "must be a whole number 0..1000000 (was \"" + clip(value)
                                + "\")");
                    }
                }
                default -> throw new ValidationException("query", "unknown qualifier '" + key + ":'; known: event_no:,"
                        + " aggregate:, trace:, type:, status:, topic:, channel:, after:, before:, error:, attempts>=");
            }
        }

        private void once(String key) {
            if (seen.contains(key)) {
                throw new ValidationException(key, "is given twice (every condition must hold: give it once)");
            }
            seen.add(key);
        }

        private static OutboxStatus status(String s) {
            try {
                return OutboxStatus.valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new ValidationException("status", "unknown status \"" + clip(s) + "\"; one of pending, publishing,"
                        + " published, failed, cancelled, dead (comma-separated)");
            }
        }

        private static Instant time(String key, String value, Instant now) {
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

        SearchQuery build() {
            return new SearchQuery(eventNo, aggregateType, aggregateId, traceId, eventType, statuses, topic, channel,
                    from, before, error, attempts);
        }
    }
}
