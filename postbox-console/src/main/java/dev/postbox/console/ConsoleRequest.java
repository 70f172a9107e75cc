package dev.postbox.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP request as {@link ConsoleApi} sees it, whatever server received it ({@link ConsoleServlet},
 * {@link ConsoleServer}, or a framework's own adapter).
 *
 * @param method        the HTTP method, e.g. {@code GET}
 * @param path          the path below the console's mount point, still percent-encoded as received, starting with
 *                      {@code /} (e.g. {@code /api/events/outbox/ORDER_CREATED%3AORD%2F1}); the API splits it
 *                      into segments first and decodes each, so an encoded {@code /} stays inside its segment
 * @param query         query parameters, decoded ({@link #parseQuery}); never null
 * @param headers       request headers by lower-case name; never null
 * @param body          the body as received, at most {@link ConsoleApi#maxBodyBytes()} + 1 bytes (a longer one
 *                      is answered 413): an adapter reads no more ({@link ConsoleApi#readBody}); never null
 * @param remoteAddress the client's IP address as text, or null when unknown
 */
public record ConsoleRequest(String method, String path, Map<String, List<String>> query,
                             Map<String, List<String>> headers, byte[] body, String remoteAddress) {

    public ConsoleRequest {
        method = method == null ? "GET" : method.toUpperCase(Locale.ROOT);
        path = path == null || path.isEmpty() ? "/" : path;
        query = query == null ? Map.of() : copy(query, false);
        headers = headers == null ? Map.of() : copy(headers, true);
        body = body == null ? new byte[0] : body;
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> in, boolean lowerCaseKeys) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        in.forEach((k, v) -> {
            if (k != null && v != null) {
                out.computeIfAbsent(lowerCaseKeys ? k.toLowerCase(Locale.ROOT) : k, x -> new ArrayList<>()).addAll(v);
            }
        });
        out.replaceAll((k, v) -> List.copyOf(v));
        return Collections.unmodifiableMap(out);
    }

    /** The first value of header {@code name} (any case), if sent. */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.ofNullable(values.get(0));
    }

    /** The first value of query parameter {@code name}, if given. */
    public Optional<String> parameter(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.ofNullable(values.get(0));
    }

    /**
     * Decodes a raw query string ({@code a=1&b=x%20y}, {@code +} as space) into parameters in order;
     * null or empty gives none. A malformed escape makes that one parameter's text undecoded.
     */
    public static Map<String, List<String>> parseQuery(String rawQuery) {
        Map<String, List<String>> params = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            params.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return params;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return s;
        }
    }
}
