package dev.postbox.spring.autoconfigure.transport;

import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.HttpPublisher;
import dev.postbox.http.WebhookHttpHandler;
import dev.postbox.http.WebhookReceiver;
import dev.postbox.http.WebhookVerifier;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static dev.postbox.spring.autoconfigure.transport.TransportTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Against a real JDK HttpServer that verifies the signature and hands each event to an inbox-guarded consumer. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpTransportAutoConfigurationTest {

    static final String SECRET = "s3cr3t-0123456789-abcdefghijklmnop";

    private TestDatabase db;
    private HttpServer server;
    private ExecutorService executor;

    @BeforeAll
    void start() {
        db = TestDatabase.postgres(null);
    }

    @AfterAll
    void stop() {
        db.close();
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
            server = null;
            executor.shutdownNow();
        }
    }

    private ApplicationContextRunner runner() {
        return TransportTestSupport.runner(db.dataSource(), HttpTransportAutoConfiguration.class);
    }

    /** Starts a webhook receiver at /postbox that verifies SECRET; returns its URL. */
    private String receiver(ApplicationContext context, String consumer, Queue<Envelope> received, Queue<Integer> answers)
            throws Exception {
        WebhookReceiver receiver = WebhookReceiver.builder(collecting(context, consumer, received))
                .verifier(WebhookVerifier.of(SECRET)).build();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        WebhookHttpHandler handler = new WebhookHttpHandler(receiver);
        server.createContext("/postbox", exchange -> {
            handler.handle(exchange);
            answers.add(exchange.getResponseCode());
        });
        executor = Executors.newFixedThreadPool(2);
        server.setExecutor(executor);
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/postbox";
    }

    @Test
    void eventsOfChannelHttpArePostedSignedToTheCatchAllEndpointAndArePublished() {
        Queue<Envelope> received = queue();
        Queue<Integer> answers = new ConcurrentLinkedQueue<>();
        String run = unique("h");
        // the receiver needs the context's DataSource and Postbox, and the context needs its URL: start a first
        // context for the receiver's side, then the sending one (in one application they would be two services)
        runner().withPropertyValues("postbox.relay.enabled=false").run(receiving -> {
            String url = receiver(receiving, "billing-" + run, received, answers);
            runner().withPropertyValues("postbox.http.endpoints.HTTP=" + url, "postbox.http.secret=" + SECRET).run(context -> {
                assertThat(context).hasNotFailed().hasSingleBean(HttpPublisher.class);
                assertThat(routes(context)).containsEntry("http", List.of("HTTP"));

                List<OutboxEvent> events = IntStream.range(0, 3)
                        .mapToObj(i -> event("HTTP", "order.event", null, run + ":" + i, run + "-agg", i)).toList();
                writeInTransaction(context, events);
                awaitPublished(db.dataSource(), events.stream().map(OutboxEvent::eventNo).toList());

                assertThat(received).extracting(Envelope::eventNo).containsExactly(run + ":0", run + ":1", run + ":2");
                assertThat(received).extracting(Envelope::payload)
                        .containsExactlyElementsOf(events.stream().map(OutboxEvent::payload).toList());
                assertThat(answers).containsOnly(200);
            });
        });
    }

    @Test
    void routesMapTopicsToNamedEndpoints() {
        Queue<Envelope> received = queue();
        Queue<Integer> answers = new ConcurrentLinkedQueue<>();
        String run = unique("h");
        runner().withPropertyValues("postbox.relay.enabled=false").run(receiving -> {
            String url = receiver(receiving, "billing-" + run, received, answers);
            runner().withPropertyValues("postbox.http.endpoints.billing=" + url, "postbox.http.routes[order.paid]=billing",
                    "postbox.http.secret=" + SECRET, "postbox.http.channels=WEBHOOK").run(context -> {
                assertThat(routes(context)).containsEntry("http", List.of("WEBHOOK"));
                OutboxEvent paid = event("WEBHOOK", "order.paid", null, run + ":paid", run + "-agg", 1);
                writeInTransaction(context, List.of(paid));
                awaitPublished(db.dataSource(), List.of(paid.eventNo()));
                assertThat(received).extracting(Envelope::eventNo).containsExactly(paid.eventNo());
            });
        });
    }

    @Test
    void badSettingsFailStartUpNamingTheProperty() {
        runner().withPropertyValues("postbox.http.endpoints.billing=ftp://example.com/x").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.http.endpoints: ")
                        .hasMessageContaining("billing"));
        runner().withPropertyValues("postbox.http.endpoints.billing=http://127.0.0.1:9/x",
                "postbox.http.routes[order.paid]=shipping").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("postbox.http.routes: ")
                        .hasMessageContaining("'shipping'"));
        runner().withPropertyValues("postbox.http.endpoints.billing=http://127.0.0.1:9/x", "postbox.http.max-in-flight=0")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageStartingWith("postbox.http.max-in-flight: must be between 1 and 10000"));
        runner().withPropertyValues("postbox.http.endpoints.billing=http://127.0.0.1:9/x", "postbox.http.channels=")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessage("postbox.http.channels: must name at least one channel"));
    }

    @Test
    void anHttpPublisherOfTheApplicationReplacesTheStartersAndIsRouted() {
        HttpPublisher own = HttpPublisher.builder().endpoint("HTTP", URI.create("http://127.0.0.1:9/x")).build();
        runner().withPropertyValues("postbox.http.endpoints.HTTP=http://127.0.0.1:9/y")
                .withBean("ownHttp", HttpPublisher.class, () -> own).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(HttpPublisher.class).doesNotHaveBean("postboxHttpPublisher");
                    assertThat(context.getBean("postboxHttpRoute", PublisherRoute.class).publisher()).isSameAs(own);
                });
    }
}
