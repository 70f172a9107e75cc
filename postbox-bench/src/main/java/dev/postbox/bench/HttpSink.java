package dev.postbox.bench;

import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.HttpPublisher;
import dev.postbox.spi.Publisher;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.Executors;

/**
 * Sink {@code http}: a JDK {@code HttpServer} on loopback (8 handler threads) answering 204 to every
 * POST; {@link HttpPublisher} (signed POSTs, {@code Idempotency-Key}, 32 requests in flight) publishes;
 * the server hands every request it received to the {@link Receiver}.
 */
final class HttpSink extends EchoSink {

    private final HttpServer server;
    private final HttpPublisher publisher;

    HttpSink(Receiver receiver) throws Exception {
        super(receiver);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/events", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                delivered(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
                exchange.sendResponseHeaders(204, -1);
            }
        });
        server.start();
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
        publisher = HttpPublisher.builder().endpoint("bench", url).route(EventWriter.TOPIC, "bench")
                .secret("bench-secret-" + System.nanoTime()).build();
        Fmt.line("SINK http " + url + " signed POSTs, Idempotency-Key, 32 in flight");
    }

    @Override
    Publisher publisher() {
        return publisher;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
