package dev.postbox.http;

import com.sun.net.httpserver.Headers;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A webhook receiver on a real JDK HttpServer consuming into table {@code delivered} through the inbox
 * of a throw-away PostgreSQL schema, and helpers to write and publish events.
 */
abstract class WebhookFixture extends DatabaseContract {

    static final String SECRET = "test-secret-0123456789-abcdefghij";
    static final String CONSUMER = "billing";

    protected TestServer server;
    protected WebhookReceiver receiver;
    /** Every envelope the handler ran for, and the raw headers of every request the server received. */
    protected final ConcurrentLinkedQueue<Envelope> handled = new ConcurrentLinkedQueue<>();
    protected final ConcurrentLinkedQueue<Headers> requests = new ConcurrentLinkedQueue<>();
    protected volatile RuntimeException handlerFailure;
    /** The consumer's own pool, as a real receiving service has (a connection per request would be the bottleneck). */
    private com.zaxxer.hikari.HikariDataSource consumerPool;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @BeforeAll
    final void createDeliveredTable() throws Exception {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setDataSource(ds);
        config.setMaximumPoolSize(16);
        config.setPoolName("consumer");
        // one commit per delivered event: no fsync wait (durability is not under test; as the RabbitMQ and NATS tests)
        config.setConnectionInitSql("SET synchronous_commit TO off");
        consumerPool = new com.zaxxer.hikari.HikariDataSource(config);
        exec("CREATE TABLE delivered (arrival BIGSERIAL PRIMARY KEY, event_no VARCHAR(128) NOT NULL,"
                + " aggregate_id VARCHAR(64) NOT NULL, seq BIGINT NOT NULL)");
    }

    @BeforeEach
    final void startReceiver() throws Exception {
        exec("DELETE FROM delivered");
        handled.clear();
        requests.clear();
        handlerFailure = null;
        EnvelopeConsumer consumer = new EnvelopeConsumer(consumerPool, postbox.inbox(), CONSUMER, (c, e) -> {
            if (handlerFailure != null) {
                throw handlerFailure;
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO delivered (event_no, aggregate_id, seq) VALUES (?, ?, ?)")) {
                ps.setString(1, e.eventNo());
                ps.setString(2, e.aggregateId());
                ps.setLong(3, Long.parseLong(e.headers().getOrDefault("x-seq", "0")));
                ps.executeUpdate();
            }
            handled.add(e);
        });
        receiver = WebhookReceiver.builder(consumer).verifier(WebhookVerifier.of(SECRET)).build();
        WebhookHttpHandler webhooks = new WebhookHttpHandler(receiver);
        server = new TestServer(exchange -> {
            requests.add(exchange.getRequestHeaders());
            webhooks.handle(exchange);
        });
    }

    @AfterEach
    final void stopReceiver() {
        server.close();
    }

    @org.junit.jupiter.api.AfterAll
    final void closeConsumerPool() {
        consumerPool.close();
    }

    /** A publisher posting every event of channel {@code WEBHOOK} to the test server. */
    protected HttpPublisher.Builder publisher() {
        return HttpPublisher.builder().endpoint("WEBHOOK", server.uri("/hooks")).secret(SECRET);
    }

    protected static OutboxEvent.Builder event(String eventNo, String aggregateId) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId).eventType("ORDER_CHANGED")
                .channel("WEBHOOK").topic("order.event").payload("{\"no\":\"" + eventNo + "\"}");
    }

    protected OutboxRecord write(OutboxEvent e) throws Exception {
        inTx(c -> postbox.outbox().write(c, e));
        return postbox.queries().outbox().byEventNo(e.eventNo()).orElseThrow();
    }

    protected static PublishResult publishOne(HttpPublisher publisher, OutboxRecord r) throws Exception {
        return publisher.publish(List.of(r)).get(0).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** Per aggregate, the {@code x-seq} header of the events in the order their work ran must rise; the violations. */
    protected List<String> orderViolations() throws Exception {
        List<String> violations = new ArrayList<>();
        Map<String, Long> last = new java.util.HashMap<>();
        try (var c = ds.getConnection(); var st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT aggregate_id, seq FROM delivered ORDER BY arrival")) {
            while (rs.next()) {
                Long previous = last.put(rs.getString(1), rs.getLong(2));
                if (previous != null && previous > rs.getLong(2)) {
                    violations.add(rs.getString(1) + ": " + rs.getLong(2) + " after " + previous);
                }
            }
        }
        return violations;
    }
}
