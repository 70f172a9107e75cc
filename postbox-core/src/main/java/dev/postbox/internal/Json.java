package dev.postbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.postbox.common.PostboxException;
import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.Dialect;

import java.io.IOException;
import java.io.StringWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON checks and the header-map codec, on Jackson's streaming parser (no data binding). */
public final class Json {

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private Json() {
    }

    /**
     * Checks that {@code json} is exactly one JSON value (object, array, string, number, boolean or
     * null) with nothing after it and no duplicate keys in any object, on no particular database.
     *
     * @throws ValidationException naming {@code field}, with the parser's line and column
     */
    public static void requireValid(String field, String json) {
        requireValid(null, field, json);
    }

    /**
     * As {@link #requireValid(String, String)}, and also what {@code dialect}'s JSON column would refuse
     * after the parser accepted it: nesting deeper than {@link Dialect#maxJsonDepth()}, an escaped
     * unpaired surrogate ({@link Dialect#acceptsJsonLoneSurrogateEscapes()}), a number out of its range
     * ({@link Dialect#acceptsJsonNumber}). {@code dialect} null checks only the syntax.
     */
    public static void requireValid(Dialect dialect, String field, String json) {
        int maxDepth = dialect == null ? Integer.MAX_VALUE : dialect.maxJsonDepth();
        boolean checkStrings = dialect != null && !dialect.acceptsJsonLoneSurrogateEscapes();
        try (JsonParser parser = FACTORY.createParser(json)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                throw new ValidationException(field, "must be a JSON value, but is empty");
            }
            int depth = 0;
            while (token != null) {
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        if (++depth > maxDepth) {
                            throw new ValidationException(field, "is nested " + depth + " levels deep at "
                                    + location(parser) + "; a JSON column on " + dialect.name()
                                    + " accepts at most " + maxDepth);
                        }
                    }
                    case END_OBJECT, END_ARRAY -> depth--;
                    case FIELD_NAME, VALUE_STRING -> {
                        if (checkStrings && Check.loneSurrogate(parser.getText()) >= 0) {
                            throw new ValidationException(field, "holds an escaped unpaired surrogate (such as"
                                    + " \\ud800) at " + location(parser) + ", which a JSON column on "
                                    + dialect.name() + " refuses");
                        }
                    }
                    case VALUE_NUMBER_FLOAT -> { // an exponent is what a database may not hold; integers are exact
                        if (dialect != null && !dialect.acceptsJsonNumber(parser.getText())) {
                            throw new ValidationException(field, "holds the number " + shorten(parser.getText())
                                    + " at " + location(parser) + ", out of the range a JSON column on "
                                    + dialect.name() + " holds");
                        }
                    }
                    default -> { }
                }
                if (depth == 0) {
                    break;
                }
                token = parser.nextToken();
            }
            if (parser.nextToken() != null) {
                throw new ValidationException(field, "is not valid JSON: unexpected content after the first value at "
                        + location(parser));
            }
        } catch (JsonParseException e) {
            throw new ValidationException(field, "is not valid JSON: " + e.getOriginalMessage() + " at "
                    + location(e.getProcessor()));
        } catch (StreamConstraintsException e) {
            throw new ValidationException(field, "is not accepted: " + e.getMessage());
        } catch (IOException e) {
            throw new ValidationException(field, "is not valid JSON: " + e.getMessage());
        }
    }

    private static String shorten(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    private static String location(JsonParser parser) {
        if (parser == null) {
            return "unknown position";
        }
        var loc = parser.currentLocation();
        return "line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    /** Serializes a header map as a JSON object of strings, in the map's iteration order. */
    public static String writeHeaders(Map<String, String> headers) {
        StringWriter out = new StringWriter(32 + headers.size() * 32);
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            gen.writeStartObject();
            for (Map.Entry<String, String> e : headers.entrySet()) {
                gen.writeStringField(e.getKey(), e.getValue());
            }
            gen.writeEndObject();
        } catch (IOException e) {
            throw new PostboxException("cannot serialize headers", e);
        }
        return out.toString();
    }

    /** Reads a JSON object of scalar values back into an ordered map; null or blank gives an empty map. */
    public static Map<String, String> readHeaders(String json) {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        try (JsonParser parser = FACTORY.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new PostboxException("event_headers is not a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    headers.put(name, readRaw(parser));
                } else {
                    headers.put(name, value == JsonToken.VALUE_NULL ? null : parser.getText());
                }
            }
        } catch (IOException e) {
            throw new PostboxException("event_headers is not valid JSON: " + e.getMessage(), e);
        }
        return Collections.unmodifiableMap(headers);
    }

    private static String readRaw(JsonParser parser) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            gen.copyCurrentStructure(parser);
        }
        return out.toString();
    }
}
