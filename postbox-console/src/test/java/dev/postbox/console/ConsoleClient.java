package dev.postbox.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tests' HTTP client of a running console: real requests with the JDK's {@link HttpClient}, Basic
 * credentials per user, the CSRF token fetched from {@code /api/me} once per user. Every answer is kept, so a
 * test can check something of all of them (no payload anywhere but the reveal).
 */
final class ConsoleClient {

    /** One answer. */
    record Res(int status, java.net.http.HttpHeaders headers, String body) {
        Map<String, Object> json() {
            return Json.parseObject(body);
        }

        List<Object> items() {
            @SuppressWarnings("unchecked")
            List<Object> items = (List<Object>) json().get("items");
            return items;
        }

        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    static final String PASSWORD = "pw-of-every-test-user";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    final List<Res> answers = java.util.Collections.synchronizedList(new ArrayList<>());

    ConsoleClient(URI base) {
        this.base = base;
    }

    URI base() {
        return base;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    Res get(String user, String path) {
        return send("GET", path, user == null ? Map.of() : Map.of("Authorization", basic(user, PASSWORD)), null);
    }

    /** A POST with the user's CSRF token and a JSON body. */
    Res post(String user, String path, String json) {
        return send("POST", path, Map.of("Authorization", basic(user, PASSWORD), "Content-Type", "application/json",
                "X-Postbox-Csrf", token(user)), json);
    }

    String token(String user) {
        return tokens.computeIfAbsent(user, u -> {
            Res me = get(u, "api/me");
            if (me.status() != 200) {
                throw new AssertionError("GET api/me as " + u + ": " + me);
            }
            return (String) me.json().get("csrfToken");
        });
    }

    /** Any request; {@code path} is relative to the console's mount path and sent as written (already encoded). */
    Res send(String method, String path, Map<String, String> headers, String body) {
        return sendTo(method, URI.create(base.toString() + path), headers, body);
    }

    /** Any request to any URI (redirects are not followed). */
    Res sendTo(String method, URI uri, Map<String, String> headers, String body) {
        String path = uri.toString();
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        headers.forEach(b::header);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            Res res = new Res(r.statusCode(), r.headers(), r.body());
            answers.add(res);
            return res;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(method + " " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A path segment, percent-encoded as a browser's encodeURIComponent does. */
    static String seg(String value) {
        return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A query parameter value. */
    static String q(String value) {
        return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
