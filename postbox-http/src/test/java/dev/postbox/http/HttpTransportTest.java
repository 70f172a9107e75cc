package dev.postbox.http;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.TransportContract;

import java.time.Duration;

/**
 * The transport conformance suite over HTTP: signed POSTs to a real JDK {@code HttpServer} with the
 * {@link WebhookHttpHandler}; the outage stops the server and starts a new one on the same port.
 */
class HttpTransportTest extends TransportContract {

    private static final String SECRET = "contract-secret-7f3a";

    @Override
    protected Broker startBroker() throws Exception {
        TestServer server = new TestServer(exchange -> {
            exchange.sendResponseHeaders(503, -1); // until a consumer is attached
            exchange.close();
        });
        HttpPublisher publisher = HttpPublisher.builder().endpoint("inventory", server.uri("/webhooks/orders"))
                .route("order.changed", "inventory").secret(SECRET).requestTimeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1)).build();
        return new Broker() {
            @Override
            public String topic() {
                return "order.changed";
            }

            @Override
            public Publisher publisher() {
                return publisher;
            }

            @Override
            public AutoCloseable consume(EnvelopeConsumer consumer) {
                server.handler = new WebhookHttpHandler(WebhookReceiver.builder(consumer)
                        .verifier(WebhookVerifier.of(SECRET)).build());
                return () -> server.handler = exchange -> {
                    exchange.sendResponseHeaders(503, -1);
                    exchange.close();
                };
            }

            @Override
            public void outage(Duration length) {
                server.stop();
                Thread back = new Thread(() -> {
                    try {
                        Thread.sleep(length.toMillis());
                        server.startAgain();
                    } catch (Exception e) {
                        throw new IllegalStateException("the webhook server did not come back", e);
                    }
                }, "webhook-server-back");
                back.setDaemon(true);
                back.start();
            }

            @Override
            public boolean deduplicates() {
                return false; // HTTP has no broker: the receiver's inbox absorbs the second POST
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }
}
