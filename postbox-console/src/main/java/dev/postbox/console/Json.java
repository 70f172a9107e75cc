package dev.postbox.console;

import dev.postbox.common.ValidationException;

import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's JSON, without a library: requests are small objects and responses are records. Writing maps
 * a record to an object of its components (by name, in declaration order), a {@link Map} to an object, a
 * collection to an array, an {@link Instant} to its ISO-8601 text, an enum to its name; reading gives
 * {@link LinkedHashMap}, {@link ArrayList}, {@link String}, {@link Long} or {@link Double}, {@link Boolean} and
 * null. The reader is strict (RFC 8259, no duplicate keys, nesting at most {@value #MAX_DEPTH}), because what
 * it reads comes from the network. (Core's {@code dev.postbox.internal.Json} only validates payloads and reads
 * header maps, on Jackson's parser; it is internal to core, so the console keeps its own.)
 */
final class Json {

    static final int MAX_DEPTH = 32;

    private Json() {
    }

    // ---------------------------------------------------------------------------------------- writing

    static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(out, value, 0);
        return out.toString();
    }

    private static void write(StringBuilder out, Object v, int depth) {
        if (depth > 64) {
            throw new IllegalStateException("value nested too deeply to write");
        }
        if (v == null) {
            out.append("null");
        } else if (v instanceof String s) {
            string(out, s);
        } else if (v instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (v instanceof Double d) {
            out.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
        } else if (v instanceof Float f) {
            write(out, f.doubleValue(), depth);
        } else if (v instanceof Number n) {
            out.append(n.toString());
        } else if (v instanceof Enum<?> e) {
            string(out, e.name());
        } else if (v instanceof Instant i) {
            string(out, i.toString());
        } else if (v instanceof Optional<?> o) {
            write(out, o.orElse(null), depth);
        } else if (v instanceof Map<?, ?> m) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(out, String.valueOf(e.getKey()));
                out.append(':');
                write(out, e.getValue(), depth + 1);
            }
            out.append('}');
        } else if (v instanceof Collection<?> c) {
            out.append('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item, depth + 1);
            }
            out.append(']');
        } else if (v instanceof Record r) {
            write(out, recordToMap(r), depth);
        } else if (v instanceof CharSequence cs) {
            string(out, cs.toString());
        } else {
            throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
        }
    }

    /** A record's components by name, in declaration order. */
    static Map<String, Object> recordToMap(Record r) {
        RecordComponent[] components = r.getClass().getRecordComponents();
        Map<String, Object> map = new LinkedHashMap<>(components.length * 2);
        for (RecordComponent c : components) {
            try {
                var accessor = c.getAccessor();
                accessor.setAccessible(true);
                map.put(c.getName(), accessor.invoke(r));
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("cannot read " + r.getClass().getSimpleName() + "." + c.getName(), e);
            }
        }
        return map;
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    // '<', '>' and '&' escaped too: a JSON body can never be read as markup, whatever sniffs it
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029'
                            || Character.isSurrogate(c) && !pairAt(s, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                        if (Character.isHighSurrogate(c)) {
                            out.append(s.charAt(++i));
                        }
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean pairAt(String s, int i) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }

    // ---------------------------------------------------------------------------------------- reading

    /** One JSON value with nothing after it; {@link ValidationException} on field {@code body} otherwise. */
    static Object parse(String text) {
        Parser p = new Parser(text);
        p.skipSpace();
        Object value = p.value(0);
        p.skipSpace();
        if (p.at < text.length()) {
            throw p.error("unexpected content after the JSON value");
        }
        return value;
    }

    /** A JSON object, as a request body must be. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new ValidationException("body", "must be a JSON object");
        }
        return (Map<String, Object>) value;
    }

    private static final class Parser {
        private final String s;
        private int at;

        Parser(String s) {
            this.s = s;
        }

        ValidationException error(String problem) {
            return new ValidationException("body", "is not valid JSON: " + problem + " at character " + at);
        }

        void skipSpace() {
            while (at < s.length()) {
                char c = s.charAt(at);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    at++;
                } else {
                    return;
                }
            }
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH + " levels");
            }
            if (at >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(at);
            switch (c) {
                case '{':
                    return object(depth);
                case '[':
                    return array(depth);
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected character '" + printable(c) + "'");
            }
        }

        private static String printable(char c) {
            return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, at)) {
                throw error("unexpected word");
            }
            at += word.length();
            return value;
        }

        private Map<String, Object> object(int depth) {
            at++;
            Map<String, Object> map = new LinkedHashMap<>();
            skipSpace();
            if (at < s.length() && s.charAt(at) == '}') {
                at++;
                return map;
            }
            while (true) {
                skipSpace();
                if (at >= s.length() || s.charAt(at) != '"') {
                    throw error("expected a quoted member name");
                }
                String key = string();
                skipSpace();
                expect(':');
                skipSpace();
                Object value = value(depth + 1);
                if (map.containsKey(key)) {
                    throw error("duplicate member \"" + key + "\"");
                }
                map.put(key, value);
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect('}');
                return map;
            }
        }

        private List<Object> array(int depth) {
            at++;
            List<Object> list = new ArrayList<>();
            skipSpace();
            if (at < s.length() && s.charAt(at) == ']') {
                at++;
                return list;
            }
            while (true) {
                skipSpace();
                list.add(value(depth + 1));
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect(']');
                return Collections.unmodifiableList(list);
            }
        }

        private void expect(char c) {
            if (at >= s.length() || s.charAt(at) != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        private String string() {
            at++; // opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (at >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(at++);
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    throw error("control character in a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (at >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(at++);
                switch (e) {
                    case '"' -> b.append('"');
                    case '\\' -> b.append('\\');
                    case '/' -> b.append('/');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (at + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        int code = 0;
                        for (int k = 0; k < 4; k++) {
                            int d = Character.digit(s.charAt(at++), 16);
                            if (d < 0) {
                                throw error("bad \\u escape");
                            }
                            code = code * 16 + d;
                        }
                        b.append((char) code);
                    }
                    default -> throw error("bad escape \\" + printable(e));
                }
            }
        }

        private Object number() {
            int start = at;
            if (s.charAt(at) == '-') {
                at++;
            }
            if (at >= s.length()) {
                throw error("bad number");
            }
            if (s.charAt(at) == '0') {
                at++;
            } else if (digits() == 0) {
                throw error("bad number");
            }
            boolean fraction = false;
            if (at < s.length() && s.charAt(at) == '.') {
                at++;
                fraction = true;
                if (digits() == 0) {
                    throw error("bad number");
                }
            }
            if (at < s.length() && (s.charAt(at) == 'e' || s.charAt(at) == 'E')) {
                at++;
                fraction = true;
                if (at < s.length() && (s.charAt(at) == '+' || s.charAt(at) == '-')) {
                    at++;
                }
                if (digits() == 0) {
                    throw error("bad number");
                }
            }
            String text = s.substring(start, at);
            if (!fraction) {
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException tooBig) {
                    // falls through: a double, as other JSON readers do
                }
            }
            return Double.parseDouble(text);
        }

        private int digits() {
            int n = 0;
            while (at < s.length() && s.charAt(at) >= '0' && s.charAt(at) <= '9') {
                at++;
                n++;
            }
            return n;
        }
    }
}
