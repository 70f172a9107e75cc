package dev.postbox.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The payload of a chaos event: the aggregate, the seq its business row got under the row lock, the
 * producer process that wrote it, and whether the producer rolls the transaction back on purpose (so a
 * delivery of such an event is caught). Parsed field by field, because PostgreSQL's {@code jsonb} hands
 * the payload back with its keys reordered and spaced.
 */
record ChaosPayload(String aggregate, long seq, int producer, boolean rollback) {

    private static final Pattern AGGREGATE = Pattern.compile("\"aggregate\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");
    private static final Pattern PRODUCER = Pattern.compile("\"producer\"\\s*:\\s*(\\d+)");
    private static final Pattern ROLLBACK = Pattern.compile("\"rollback\"\\s*:\\s*(true|false)");

    String json() {
        return "{\"aggregate\":\"" + aggregate + "\",\"seq\":" + seq + ",\"producer\":" + producer
                + ",\"rollback\":" + rollback + "}";
    }

    /** The fields of {@code json}; an {@link IllegalArgumentException} when one is missing. */
    static ChaosPayload parse(String json) {
        return new ChaosPayload(field(AGGREGATE, json), Long.parseLong(field(SEQ, json)),
                Integer.parseInt(field(PRODUCER, json)), Boolean.parseBoolean(field(ROLLBACK, json)));
    }

    private static String field(Pattern p, String json) {
        Matcher m = p.matcher(json == null ? "" : json);
        if (!m.find()) {
            throw new IllegalArgumentException("not a chaos payload (" + p.pattern() + " missing): " + json);
        }
        return m.group(1);
    }
}
