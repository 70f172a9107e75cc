package dev.postbox.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.postbox.PostboxException;
import dev.postbox.ValidationException;

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
     * null) with nothing after it and no duplicate keys in any object.
     *
     * @throws ValidationException naming {@code field}, with the parser's line and column
     */
    public static void requireValid(String field, String json) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            if (parser.nextToken() == null) {
                throw new ValidationException(field, "must be a JSON value, but is empty");
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                throw new ValidationException(field, "is not valid JSON: unexpected content after the first value at "
                        + location(parser));
            }
        } catch (JsonParseException e) {
            throw new ValidationException(field, "is not valid JSON: " + e.getOriginalMessage() + " at "
                    + location(e.getProcessor()));
        } catch (IOException e) {
            throw new ValidationException(field, "is not valid JSON: " + e.getMessage());
        }
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
