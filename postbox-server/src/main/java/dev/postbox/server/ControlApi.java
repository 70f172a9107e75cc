package dev.postbox.server;

import com.sun.net.httpserver.HttpExchange;
import dev.postbox.query.Backlog;
import dev.postbox.relay.Relay;
import dev.postbox.server.RelayServer.Json;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.function.Function;

/**
 * The server's own HTTP endpoints (the console is served beside them):
 * <ul>
 * <li>{@code GET /health}: live (200 UP until the shutdown starts)</li>
 * <li>{@code GET /health/ready}: 200 when every source is running (or paused, draining on purpose) with its clock
 * trusted and every destination's last outcome a success (or paused); 503 otherwise; details per source (state, why
 * it waits, backlog) and per destination (status, in flight, last failure)</li>
 * <li>{@code GET /metrics}: Prometheus text</li>
 * <li>{@code GET /api/sources}, {@code GET /api/destinations}: the same details;
 * {@code POST /api/sources/NAME/pause|resume|drain} and {@code POST /api/destinations/NAME/pause|resume|drain}
 * (a tenant's bulkhead is {@code NAME} = {@code source[tenant]}, URL-encoded). Pause: a source's relay stops claiming
 * and finishes or gives back what it holds; a destination sends nothing more and its events wait, no retry counted.
 * Drain: a source relays until nothing is left to publish, then pauses; a destination pauses and answers once its
 * sends in flight are done. With {@code server.api-token} every {@code /api} request needs
 * {@code Authorization: Bearer TOKEN}; without one, {@code /api} answers only requests from this machine.</li>
 * </ul>
 */
final class ControlApi {

    private final RelayServer server;
    private final byte[] token;

    ControlApi(RelayServer server, String token) {
        this.server = server;
        this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    void health(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/health") || path.equals("/health/")) {
                boolean live = !server.closing();
                send(exchange, live ? 200 : 503, "{\"status\":\"" + (live ? "UP" : "DOWN") + "\"}");
                return;
            }
            if (!path.equals("/health/ready")) {
                send(exchange, 404, "{\"error\":\"not found\"}");
                return;
            }
            boolean up = !server.closing();
            for (SourceRelay s : server.sources().values()) {
                up &= sourceUp(s);
            }
            for (BoundedPublisher d : server.destinations().values()) {
                up &= !d.status().equals("DOWN");
            }
            send(exchange, up ? 200 : 503, "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"instanceId\":"
                    + Json.string(server.instanceId()) + ",\"sources\":" + sources() + ",\"destinations\":"
                    + destinations() + "}");
        }
    }

    private static boolean sourceUp(SourceRelay s) {
        return switch (s.state()) {
            case RUNNING, DRAINING -> {
                Relay r = s.relay();
                yield r != null && r.isRunning() && r.clockTrusted()
                        && (s.monitor().fresh().isPresent() || readable(s)); // its database answers
            }
            case PAUSED -> true;
            case WAITING, STOPPED -> false;
        };
    }

    private static boolean readable(SourceRelay s) {
        try {
            s.monitor().readNow();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private String sources() {
        StringBuilder b = new StringBuilder("{");
        for (SourceRelay s : server.sources().values()) {
            b.append(b.length() == 1 ? "" : ",").append(Json.string(s.name())).append(':').append(source(s));
        }
        return b.append('}').toString();
    }

    private static String source(SourceRelay s) {
        Relay r = s.relay();
        Backlog backlog = s.backlog();
        StringBuilder b = new StringBuilder("{\"status\":\"").append(sourceUp(s) ? "UP" : "DOWN")
                .append("\",\"state\":\"").append(s.state()).append("\",\"since\":\"").append(s.since())
                .append("\",\"console\":").append(Json.string(s.consolePath() + "/"));
        if (s.lastError() != null) {
            b.append(",\"error\":").append(Json.string(s.lastError()));
        }
        if (r != null) {
            b.append(",\"running\":").append(r.isRunning()).append(",\"clockTrusted\":").append(r.clockTrusted())
                    .append(",\"instanceId\":").append(Json.string(r.instanceId()));
        }
        if (backlog != null) {
            b.append(",\"backlog\":{\"pending\":").append(backlog.pending()).append(",\"publishing\":")
                    .append(backlog.inProgress()).append(",\"failed\":").append(backlog.failed()).append(",\"dead\":")
                    .append(backlog.dead()).append('}');
        }
        return b.append('}').toString();
    }

    private String destinations() {
        StringBuilder b = new StringBuilder("{");
        for (BoundedPublisher d : server.destinations().values()) {
            b.append(b.length() == 1 ? "" : ",").append(Json.string(d.name())).append(':').append(destination(d));
        }
        return b.append('}').toString();
    }

    private String destination(BoundedPublisher d) {
        StringBuilder b = new StringBuilder("{\"type\":\"").append(server.destinationType(d.name()))
                .append("\",\"status\":\"").append(d.status()).append("\",\"inFlight\":")
                .append(d.inFlight()).append(",\"maxInFlight\":").append(d.maxInFlight());
        if (d.lastSuccess() != null) {
            b.append(",\"lastSuccess\":\"").append(d.lastSuccess()).append('"');
        }
        if (d.lastFailureReason() != null) {
            b.append(",\"lastFailure\":").append(Json.string(d.lastFailureReason()));
        }
        return b.append('}').toString();
    }

    void metrics(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = server.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    void index(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals("/")) {
                send(exchange, 404, "{\"error\":\"not found\"}");
                return;
            }
            StringBuilder html = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><title>"
                    + "postbox-server</title></head><body><h1>postbox-server ").append(escape(server.instanceId()))
                    .append("</h1><ul>");
            for (SourceRelay s : server.sources().values()) {
                html.append("<li><a href=\"").append(s.consolePath()).append("/\">").append(escape(s.name()))
                        .append("</a> ").append(s.state()).append("</li>");
            }
            html.append("</ul><p><a href=\"/health/ready\">health</a> · <a href=\"/metrics\">metrics</a> · "
                    + "<a href=\"/api/sources\">sources</a> · <a href=\"/api/destinations\">destinations</a></p>"
                    + "</body></html>");
            byte[] body = html.toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    void api(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!allowed(exchange)) {
                return;
            }
            String[] parts = exchange.getRequestURI().getRawPath().substring("/api/".length()).split("/", -1);
            String method = exchange.getRequestMethod();
            String kind = parts[0];
            if (!kind.equals("sources") && !kind.equals("destinations")) {
                send(exchange, 404, "{\"error\":\"not found: /api/sources or /api/destinations\"}");
                return;
            }
            boolean sources = kind.equals("sources");
            if (parts.length == 1 || parts.length == 2 && parts[1].isEmpty()) {
                if (!method.equals("GET")) {
                    send(exchange, 405, "{\"error\":\"GET only\"}");
                    return;
                }
                send(exchange, 200, sources ? sources() : destinations());
                return;
            }
            String name = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
            Map<String, ?> all = sources ? server.sources() : server.destinations();
            if (!all.containsKey(name)) {
                send(exchange, 404, "{\"error\":" + Json.string("no " + (sources ? "source" : "destination") + " named '"
                        + name + "' (known: " + String.join(", ", all.keySet()) + ")") + "}");
                return;
            }
            if (parts.length == 2) {
                if (!method.equals("GET")) {
                    send(exchange, 405, "{\"error\":\"GET only\"}");
                    return;
                }
                send(exchange, 200, sources ? source(server.sources().get(name))
                        : destination(server.destinations().get(name)));
                return;
            }
            String action = parts[2];
            if (parts.length > 3 || !action.equals("pause") && !action.equals("resume") && !action.equals("drain")) {
                send(exchange, 404, "{\"error\":\"actions: pause, resume, drain\"}");
                return;
            }
            if (!method.equals("POST")) {
                send(exchange, 405, "{\"error\":\"POST only\"}");
                return;
            }
            if (sources) {
                act(exchange, server.sources().get(name), action);
            } else {
                act(exchange, server.destinations().get(name), action);
            }
        }
    }

    private void act(HttpExchange exchange, SourceRelay s, String action) throws IOException {
        Function<SourceRelay, SourceRelay.State> f = switch (action) {
            case "pause" -> SourceRelay::pause;
            case "resume" -> SourceRelay::resume;
            default -> SourceRelay::drain;
        };
        try {
            f.apply(s);
        } catch (IllegalStateException e) {
            send(exchange, 409, "{\"error\":" + Json.string(e.getMessage()) + "}");
            return;
        }
        send(exchange, 200, source(s));
    }

    private void act(HttpExchange exchange, BoundedPublisher d, String action) throws IOException {
        switch (action) {
            case "pause" -> d.paused(true);
            case "resume" -> d.paused(false);
            default -> {
                d.paused(true);
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (d.inFlight() > 0 && System.nanoTime() < deadline) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                if (d.inFlight() > 0) {
                    send(exchange, 202, "{\"drained\":false,\"destination\":" + destination(d) + "}");
                    return;
                }
            }
        }
        send(exchange, 200, destination(d));
    }

    private boolean allowed(HttpExchange exchange) throws IOException {
        if (token != null) {
            String h = exchange.getRequestHeaders().getFirst("Authorization");
            byte[] given = h != null && h.startsWith("Bearer ")
                    ? h.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8) : new byte[0];
            if (!MessageDigest.isEqual(given, token)) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"postbox-server\"");
                send(exchange, 401, "{\"error\":\"Authorization: Bearer <server.api-token> required\"}");
                return false;
            }
            return true;
        }
        InetSocketAddress remote = exchange.getRemoteAddress();
        if (remote == null || remote.getAddress() == null || !remote.getAddress().isLoopbackAddress()) {
            send(exchange, 403, "{\"error\":\"no server.api-token is configured: the API answers only requests from"
                    + " this machine\"}");
            return false;
        }
        return true;
    }

    static void send(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
