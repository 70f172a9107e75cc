package dev.postbox.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.postbox.common.PostboxDefaults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A {@link WebhookReceiver} as a handler of the JDK's own {@code com.sun.net.httpserver.HttpServer}:
 * <pre>{@code
 * HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
 * server.createContext("/postbox", new WebhookHttpHandler(receiver));
 * server.setExecutor(Executors.newFixedThreadPool(8));
 * server.start();
 * }</pre>
 * Bodies over twice Postbox's maximum payload size are refused with 413 without reading them. Thread-safe.
 */
public final class WebhookHttpHandler implements HttpHandler {

    /** Largest body read: twice {@link PostboxDefaults#MAX_PAYLOAD_BYTES}. */
    public static final int MAX_BODY_BYTES = 2 * PostboxDefaults.MAX_PAYLOAD_BYTES;

    private final WebhookReceiver receiver;

    public WebhookHttpHandler(WebhookReceiver receiver) {
        this.receiver = java.util.Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY_BYTES + 1);
            }
            WebhookResponse response = body.length > MAX_BODY_BYTES
                    ? new WebhookResponse(413, "body larger than " + MAX_BODY_BYTES + " bytes")
                    : receiver.receive(exchange.getRequestMethod(), exchange.getRequestHeaders(), body);
            byte[] text = response.message().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(response.status(), text.length == 0 ? -1 : text.length);
            if (text.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(text);
                }
            }
        }
    }
}
