package dev.postbox.spring.autoconfigure.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Real HTTP to the application's embedded server (the JDK's client; redirects are not followed). */
final class Http {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final String base;

    Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** A request to {@code path} (from the server's root), with Basic credentials when {@code user} is not null. */
    HttpRequest.Builder request(String path, String user, String password) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return b;
    }

    HttpResponse<String> get(String path, String user, String password) {
        return send(request(path, user, password).header("Accept", "application/json").GET().build());
    }

    /** A JSON POST with the console's CSRF header when {@code csrf} is not null. */
    HttpResponse<String> post(String path, String user, String password, String csrf, String json) {
        HttpRequest.Builder b = request(path, user, password).header("Content-Type", "application/json")
                .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (csrf != null) {
            b.header("X-Postbox-Csrf", csrf);
        }
        return send(b.build());
    }

    /** The csrfToken of GET /postbox/api/me for that user. */
    String csrf(String mount, String user, String password) {
        HttpResponse<String> me = get(mount + "/api/me", user, password);
        if (me.statusCode() != 200) {
            throw new AssertionError("GET api/me as " + user + ": " + me.statusCode() + " " + me.body());
        }
        return field(me.body(), "csrfToken");
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A string field of a flat JSON answer (enough for the few fields these tests read). */
    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        if (!m.find()) {
            throw new AssertionError("no string field " + name + " in " + json);
        }
        return m.group(1);
    }
}
