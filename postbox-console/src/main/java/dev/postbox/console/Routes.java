package dev.postbox.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The console's route table: templates such as {@code /api/events/{kind}/{eventNo}} matched segment by segment
 * against the raw path, each segment percent-decoded after the split (so {@code %2F} inside an event number
 * stays part of it). A last segment {@code *} matches the rest of the path (the UI's assets).
 */
final class Routes {

    @FunctionalInterface
    interface Handler {
        Reply handle(Call call);
    }

    /** One route; {@code changes} marks the ones a read-only console refuses. */
    record Route(String method, String template, boolean changes, Handler handler) {
        List<String> segments() {
            return split(template);
        }
    }

    record Match(Route route, Map<String, String> params) {
    }

    private final List<Route> routes = new ArrayList<>();

    Routes get(String template, Handler handler) {
        routes.add(new Route("GET", template, false, handler));
        return this;
    }

    /** A POST that reads or only reveals (a dry run, a payload): allowed on a read-only console. */
    Routes post(String template, Handler handler) {
        routes.add(new Route("POST", template, false, handler));
        return this;
    }

    /** A POST that changes events. */
    Routes change(String template, Handler handler) {
        routes.add(new Route("POST", template, true, handler));
        return this;
    }

    List<Route> all() {
        return List.copyOf(routes);
    }

    /** The route for {@code method} and {@code rawPath}; 404 when no template matches, 405 when only other methods do. */
    Match match(String method, String rawPath) {
        List<String> raw = split(rawPath);
        Set<String> allowed = new TreeSet<>();
        for (Route r : routes) {
            Map<String, String> params = bind(r.segments(), raw);
            if (params == null) {
                continue;
            }
            if (r.method.equals(method)) {
                return new Match(r, params);
            }
            allowed.add(r.method);
        }
        if (!allowed.isEmpty()) {
            throw new MethodNotAllowed(allowed);
        }
        throw ApiError.notFound("no such route: " + method + " " + clip(rawPath));
    }

    /** 405 with the methods the path has. */
    static final class MethodNotAllowed extends ApiError {
        final Set<String> allowed;

        MethodNotAllowed(Set<String> allowed) {
            super(405, "method_not_allowed", null, "method not allowed here; allowed: " + String.join(", ", allowed));
            this.allowed = allowed;
        }
    }

    private static Map<String, String> bind(List<String> template, List<String> raw) {
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < template.size(); i++) {
            String t = template.get(i);
            if (t.equals("*") && i == template.size() - 1) {
                if (raw.size() <= i) {
                    return null;
                }
                params.put("*", String.join("/", raw.subList(i, raw.size())));
                return params;
            }
            if (i >= raw.size()) {
                return null;
            }
            String segment = raw.get(i);
            if (t.startsWith("{") && t.endsWith("}")) {
                if (segment.isEmpty()) {
                    return null;
                }
                params.put(t.substring(1, t.length() - 1), decode(segment));
            } else if (!t.equals(segment)) {
                return null;
            }
        }
        return template.size() == raw.size() ? params : null;
    }

    /** Segments of a path: {@code /} is none, {@code /api/me} is [api, me]; a trailing slash adds an empty one. */
    static List<String> split(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        if (p.isEmpty()) {
            return List.of();
        }
        return List.of(p.split("/", -1));
    }

    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        try {
            // a path segment: '+' is a plus sign here, not a space as in a query string
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("path", "has a malformed percent escape in \"" + clip(segment) + "\"");
        }
    }

    private static String clip(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
