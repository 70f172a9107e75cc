package dev.postbox.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The console's HTTP JSON API, as one operator: HTTP Basic credentials sent with every request, the CSRF
 * token every non-GET request needs read once from {@code GET /api/me}, cookies kept for the session.
 * An answer other than 2xx becomes a {@link CliException} with the console's message, the field it named
 * and the exit code for its status (401/403 {@link ExitCode#DENIED}, 404 {@link ExitCode#NOT_FOUND}, 400
 * and 422 {@link ExitCode#USAGE}, anything else {@link ExitCode#ERROR}). Not thread-safe (one command).
 */
final class ConsoleClient {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    static final String CSRF_HEADER = "X-Postbox-Csrf";

    private final String base;
    private final String authorization;
    private final HttpClient http;
    private Map<?, ?> me;

    /**
     * @param base     the console's address, e.g. {@code http://localhost:8080/postbox} (routes are {@code base + /api/...})
     * @param user     null for no credentials
     * @param password the user's password (empty when none was given)
     */
    ConsoleClient(String base, String user, char[] password) {
        String b = base.trim();
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        URI uri;
        try {
            uri = URI.create(b);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--url: not a URL: " + base);
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new CliException(ExitCode.USAGE, "--url: must start with http:// or https:// (was " + base + ")");
        }
        this.base = b;
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + new String(password)).getBytes(StandardCharsets.UTF_8));
        this.http = HttpClient.newBuilder()
                .connectTimeout(CONNECT_TIMEOUT)
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    String base() {
        return base;
    }

    /** {@code GET /api/me}: who the console takes us for (read once). */
    Map<?, ?> me() {
        if (me == null) {
            Object doc = get("/api/me", Map.of());
            me = doc instanceof Map<?, ?> m ? m : Map.of();
        }
        return me;
    }

    /** GET {@code path} with {@code query} parameters (null values left out). */
    Object get(String path, Map<String, ?> query) {
        HttpRequest.Builder req = request(path + queryString(query)).GET();
        return send(req.build());
    }

    /** POST {@code body} as JSON to {@code path}, with the CSRF token. */
    Object post(String path, Map<String, ?> body) {
        String token = Fields.text(me(), "csrfToken");
        HttpRequest.Builder req = request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8));
        if (token != null) {
            req.header(CSRF_HEADER, token);
        }
        return send(req.build());
    }

    /** A path segment as the URL must carry it (an event_no may hold ':', '/', spaces). */
    static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A JSON body or query parameters in the order given (nulls left out). */
    static Map<String, Object> map(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                m.put((String) keyValues[i], keyValues[i + 1]);
            }
        }
        return m;
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    private Object send(HttpRequest req) {
        HttpResponse<String> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new CliException(ExitCode.ERROR, "cannot reach the console at " + base + " (connection refused);"
                    + " is --url (or POSTBOX_URL) right?");
        } catch (HttpTimeoutException e) {
            throw new CliException(ExitCode.ERROR, "the console at " + base + " did not answer " + req.method() + " "
                    + req.uri().getPath() + " in time (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw new CliException(ExitCode.ERROR, "cannot talk to the console at " + base + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCode.ERROR, "interrupted");
        }
        int status = resp.statusCode();
        Object doc = parse(resp);
        if (status >= 200 && status < 300) {
            return doc;
        }
        throw failure(req, status, doc, resp.body());
    }

    private static Object parse(HttpResponse<String> resp) {
        String body = resp.body();
        if (body == null || body.isBlank()) {
            return Map.of();
        }
        try {
            return Json.parse(body);
        } catch (IllegalArgumentException e) {
            if (resp.statusCode() >= 200 && resp.statusCode() < 300) {
                throw new CliException(ExitCode.ERROR, "the console answered " + resp.request().uri().getPath()
                        + " with something that is not JSON: " + Fields.clip(body, 120));
            }
            return null;
        }
    }

    private CliException failure(HttpRequest req, int status, Object doc, String raw) {
        String field = Fields.text(doc, "field");
        String message = Fields.text(doc, "message");
        if (message == null) {
            message = Fields.text(doc, "error");
        }
        if (message == null && !Fields.list(doc, "errors").isEmpty()) {
            Object first = Fields.list(doc, "errors").get(0);
            field = Fields.text(first, "field");
            message = Fields.text(first, "message");
        }
        if (message == null) {
            message = raw == null || raw.isBlank() ? "HTTP " + status : Fields.clip(raw, 200);
        }
        if (field != null && !message.contains(field)) {
            message = field + ": " + message;
        }
        String what = req.method() + " " + req.uri().getRawPath();
        int exit;
        switch (status) {
            case 401:
                exit = ExitCode.DENIED;
                message = "not signed in (401): " + message + (authorization == null
                        ? " (no user given: --user or POSTBOX_USER)" : " (check --user and the password)");
                break;
            case 403:
                exit = ExitCode.DENIED;
                message = "forbidden (403): " + message;
                break;
            case 404:
                exit = ExitCode.NOT_FOUND;
                message = "not found (404): " + message + (doc instanceof Map<?, ?> m && m.containsKey("message") ? ""
                        : " (no console answers " + what + ": --url must be where it is mounted, e.g."
                        + " http://host:8080/postbox)");
                break;
            case 400:
            case 422:
                exit = ExitCode.USAGE;
                break;
            default:
                exit = ExitCode.ERROR;
                message = "the console answered " + status + " to " + what + ": " + message;
        }
        return new CliException(exit, message, status, field);
    }

    private static String queryString(Map<String, ?> query) {
        StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
        query.forEach((k, v) -> {
            if (v != null) {
                q.add(k + "=" + URLEncoder.encode(v.toString(), StandardCharsets.UTF_8));
            }
        });
        return q.toString();
    }
}
