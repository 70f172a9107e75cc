package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.operations.EventKind;
import dev.postbox.operations.Operator;
import dev.postbox.query.PageRequest;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;

/** One request to a route: who asks, the path's parameters, the query and the JSON body, read and checked. */
final class Call {

    /** Page size when a request names none. */
    static final int DEFAULT_LIMIT = 50;

    final ConsoleRequest request;
    final Operator operator;
    private final Map<String, String> params;
    private Map<String, Object> body;

    Call(ConsoleRequest request, Operator operator, Map<String, String> params) {
        this.request = request;
        this.operator = operator;
        this.params = params;
    }

    String path(String name) {
        return params.get(name);
    }

    EventKind kind(String field, String value) {
        if (value == null) {
            throw ApiError.badRequest(field, "is required (outbox or message)");
        }
        switch (value.toLowerCase(Locale.ROOT)) {
            case "outbox":
                return EventKind.OUTBOX;
            case "message":
                return EventKind.MESSAGE;
            default:
                throw ApiError.badRequest(field, "must be outbox or message (was \"" + clip(value) + "\")");
        }
    }

    String query(String name) {
        return request.parameter(name).filter(v -> !v.isEmpty()).orElse(null);
    }

    PageRequest page() {
        String raw = query("limit");
        int limit = DEFAULT_LIMIT;
        if (raw != null) {
            try {
                limit = Integer.parseInt(raw.strip());
            } catch (NumberFormatException e) {
                throw ApiError.badRequest("limit", "must be a whole number (was \"" + clip(raw) + "\")");
            }
        }
        return new PageRequest(limit, query("after"));
    }

    Instant instant(String name) {
        String raw = query(name);
        if (raw == null) {
            return null;
        }
        try {
            return Instant.parse(raw.strip());
        } catch (DateTimeParseException e) {
            throw ApiError.badRequest(name, "must be an ISO-8601 instant such as 2026-12-01T06:00:00Z (was \""
                    + clip(raw) + "\")");
        }
    }

    /** The body as a JSON object (parsed once). */
    Map<String, Object> body() {
        if (body == null) {
            byte[] bytes = request.body();
            if (bytes.length == 0) {
                throw ApiError.badRequest("body", "is required: a JSON object");
            }
            String text;
            try {
                text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw ApiError.badRequest("body", "is not valid UTF-8");
            }
            try {
                body = Json.parseObject(text);
            } catch (ValidationException e) {
                throw ApiError.badRequest("body", e.getMessage().substring("body: ".length()));
            }
        }
        return body;
    }

    /** A string member of the body, null when absent or JSON null. */
    String string(String field) {
        Object v = body().get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw ApiError.badRequest(field, "must be a string");
        }
        return s;
    }

    String required(String field, int max) {
        return Check.required(field, string(field), max);
    }

    /** The operator's reason for a change: required, 1..500 characters. */
    String reason() {
        return required("reason", 500);
    }

    int integer(String field) {
        Object v = body().get(field);
        if (v == null) {
            throw ApiError.badRequest(field, "is required (a whole number)");
        }
        if (v instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
            return l.intValue();
        }
        if (v instanceof Long || v instanceof Double) {
            throw ApiError.badRequest(field, "must be a whole number within the limits (was " + v + ")");
        }
        throw ApiError.badRequest(field, "must be a number");
    }

    static String clip(String s) {
        String line = s.replaceAll("\\p{Cntrl}", "?");
        return line.length() > 100 ? line.substring(0, 100) + "..." : line;
    }
}
