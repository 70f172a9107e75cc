package dev.postbox.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks a JSON answer against a schema of the console's OpenAPI document, as far as the document uses JSON
 * Schema: {@code $ref}, {@code type} (one or a list, {@code "null"} included), {@code properties} with
 * {@code required} (and no property the schema does not name), {@code additionalProperties}, {@code items},
 * {@code enum}, {@code oneOf}. Enough to prove that the document describes what the API writes.
 */
final class SchemaCheck {

    private final Map<String, Object> schemas;

    @SuppressWarnings("unchecked")
    SchemaCheck(Map<String, Object> document) {
        this.schemas = (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
    }

    /** What does not fit, at which JSON path; empty when {@code value} conforms to schema {@code name}. */
    List<String> problems(String name, Object value) {
        List<String> out = new ArrayList<>();
        check(ref(name), value, "$", out);
        return out;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> ref(String name) {
        Object s = schemas.get(name);
        if (s == null) {
            throw new AssertionError("no schema " + name);
        }
        return (Map<String, Object>) s;
    }

    @SuppressWarnings("unchecked")
    private void check(Map<String, Object> schema, Object value, String at, List<String> out) {
        if (schema.containsKey("$ref")) {
            String r = (String) schema.get("$ref");
            check(ref(r.substring(r.lastIndexOf('/') + 1)), value, at, out);
            return;
        }
        if (schema.containsKey("oneOf")) {
            List<Object> options = (List<Object>) schema.get("oneOf");
            int fitting = 0;
            List<String> why = new ArrayList<>();
            for (Object o : options) {
                List<String> p = new ArrayList<>();
                check((Map<String, Object>) o, value, at, p);
                if (p.isEmpty()) {
                    fitting++;
                } else {
                    why.addAll(p);
                }
            }
            if (fitting != 1) {
                out.add(at + ": fits " + fitting + " of oneOf " + why);
            }
            return;
        }
        Object type = schema.get("type");
        List<Object> types = type == null ? List.of() : type instanceof List ? (List<Object>) type : List.of(type);
        if (!types.isEmpty() && types.stream().noneMatch(t -> is((String) t, value))) {
            out.add(at + ": " + describe(value) + " is not " + types);
            return;
        }
        if (schema.containsKey("enum") && value != null && !((List<Object>) schema.get("enum")).contains(value)) {
            out.add(at + ": " + value + " is not one of " + schema.get("enum"));
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> props = (Map<String, Object>) schema.get("properties");
            if (props != null) {
                for (Object req : (List<Object>) schema.getOrDefault("required", List.of())) {
                    if (!map.containsKey(req)) {
                        out.add(at + ": required property " + req + " missing");
                    }
                }
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    Object p = props.get(e.getKey());
                    if (p == null) {
                        out.add(at + ": property " + e.getKey() + " is not in the schema");
                    } else {
                        check((Map<String, Object>) p, e.getValue(), at + "." + e.getKey(), out);
                    }
                }
            } else if (schema.get("additionalProperties") instanceof Map<?, ?> extra) {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    check((Map<String, Object>) extra, e.getValue(), at + "." + e.getKey(), out);
                }
            }
        }
        if (value instanceof List<?> list && schema.get("items") instanceof Map<?, ?> items) {
            for (int i = 0; i < list.size(); i++) {
                check((Map<String, Object>) items, list.get(i), at + "[" + i + "]", out);
            }
        }
    }

    private static boolean is(String type, Object v) {
        switch (type) {
            case "null":
                return v == null;
            case "string":
                return v instanceof String;
            case "integer":
                return v instanceof Long;
            case "number":
                return v instanceof Long || v instanceof Double;
            case "boolean":
                return v instanceof Boolean;
            case "array":
                return v instanceof List;
            case "object":
                return v instanceof Map;
            default:
                throw new AssertionError("unknown type " + type);
        }
    }

    private static String describe(Object v) {
        return v == null ? "null" : v.getClass().getSimpleName() + " " + v;
    }
}
