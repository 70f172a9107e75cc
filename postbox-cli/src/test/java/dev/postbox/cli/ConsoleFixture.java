package dev.postbox.cli;

import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.console.BasicAuthenticator;
import dev.postbox.console.ConsoleApi;
import dev.postbox.console.ConsoleServer;
import dev.postbox.console.PasswordHash;
import dev.postbox.operations.Operations;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Role;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The world the CLI's tests run in: a throw-away database with the Postbox schema, a Postbox on it, its
 * {@link Operations} behind a real {@link ConsoleServer} (the JDK server, Basic authentication, CSRF) on a
 * free loopback port, and a running relay whose publisher stands for a stock service that fails every event of
 * an order for an unknown SKU ({@code SKU-POISON}, {@code SKU-GONE}) until the test "fixes" it. Users: {@code ann}
 * (operator), {@code vic} (viewer), {@code ada} (admin, may reveal payloads). Each test starts from empty tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConsoleFixture {

    static final String TOPIC = "orders";

    protected abstract TestDatabase newDatabase();

    TestDatabase db;
    DataSource ds;
    Postbox postbox;
    ConsoleApi api;
    ConsoleServer server;
    Relay relay;
    String url;

    /** SKUs the stock service does not know (yet): the publisher fails events whose payload names one. */
    final Set<String> unknownSkus = ConcurrentHashMap.newKeySet();
    /** event_no of every event the publisher accepted, in order. */
    final List<String> published = new CopyOnWriteArrayList<>();
    private final AtomicInteger relays = new AtomicInteger();

    @BeforeAll
    final void startConsole() {
        db = newDatabase();
        ds = db.dataSource();
        postbox = Postbox.builder(ds).source("shop").build();
        postbox.schema().install();
        BasicAuthenticator auth = BasicAuthenticator.builder()
                .user("ann", hash("ann-secret"), Role.OPERATOR)
                .user("vic", hash("vic-secret"), Role.VIEWER)
                .user("ada", hash("ada-secret"), Role.ADMIN)
                .build();
        api = ConsoleApi.builder(operations(postbox)).authenticator(auth).build();
        server = ConsoleServer.builder(api).port(0).start();
        url = server.uri().toString();
        startRelay();
    }

    /** Starts the relay (again, after a test closed it), with a new instance id. */
    final void startRelay() {
        relay = postbox.relay(stockService()).instanceId("relay-cli-" + relays.incrementAndGet())
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMillis(20))))
                .pollInterval(Duration.ofMillis(10), Duration.ofMillis(100))
                .build().start();
    }

    /** The service behind the console; its overview cached for the shortest time, so status tests wait little. */
    Operations operations(Postbox p) {
        return p.operations(OperationsConfig.defaults().overviewTtl(Duration.ofSeconds(1)));
    }

    @AfterAll
    final void stopConsole() {
        try (TestDatabase d = db; ConsoleApi a = api; ConsoleServer s = server; Relay r = relay) {
            // closed in reverse order: relay, server, api, database
        }
    }

    @BeforeEach
    final void emptyTables() throws Exception {
        if (!relay.isRunning()) {
            startRelay();
        }
        unknownSkus.clear();
        unknownSkus.addAll(Set.of("SKU-POISON", "SKU-GONE"));
        published.clear();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (String t : new String[] {postbox.tables().outbox(), postbox.tables().message(),
                    postbox.tables().consumeLog(), postbox.tables().compensationLog(), postbox.tables().adminLog(),
                    postbox.tables().eventAttempt(), postbox.tables().adminAction()}) {
                st.execute("DELETE FROM " + t);
            }
            c.commit();
        }
    }

    private static String hash(String password) {
        return PasswordHash.create(password.toCharArray(), PasswordHash.MIN_ITERATIONS);
    }

    /** The CLI signed in as {@code user} (password from POSTBOX_PASSWORD), against this console. */
    Cli as(String user) {
        return new Cli().env("POSTBOX_URL", url).env("POSTBOX_USER", user).env("POSTBOX_PASSWORD", user + "-secret");
    }

    private Publisher stockService() {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                String unknown = unknownSkus.stream().filter(s -> r.payload().contains("\"" + s + "\"")).findFirst().orElse(null);
                if (unknown != null) {
                    out.add(CompletableFuture.completedFuture(PublishResult.retry("stock service: unknown SKU " + unknown)));
                } else {
                    published.add(r.eventNo());
                    out.add(CompletableFuture.completedFuture(PublishResult.published()));
                }
            }
            return out;
        };
    }

    /**
     * Writes one order's events in one transaction: event_no {@code TYPE:orderNo}, aggregate ORDER/orderNo,
     * topic {@value #TOPIC}, at most 2 retries (so a poisoned event is DEAD after three attempts). Only the first
     * event's payload names the SKU (and a card number no list may show); the later ones wait behind it.
     */
    void order(String orderNo, String sku, String... types) throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            String type = types[i];
            events.add(OutboxEvent.builder().eventNo(type + ":" + orderNo).aggregate("ORDER", orderNo).eventType(type)
                    .channel("MQ").topic(TOPIC).maxRetries(2).traceId("trace-" + orderNo)
                    .payload(i == 0 ? "{\"orderNo\":\"" + orderNo + "\",\"sku\":\"" + sku + "\",\"card\":\"4111-1111\"}"
                            : "{\"orderNo\":\"" + orderNo + "\",\"step\":" + i + "}").build());
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().writeAll(c, events);
            c.commit();
        }
        postbox.wakeRelays();
    }

    OutboxStatus status(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).map(OutboxRecord::status).orElse(null);
    }

    void awaitStatus(String eventNo, OutboxStatus expected) {
        Await.until(eventNo + " " + expected, Duration.ofSeconds(30), () -> status(eventNo) == expected,
                () -> postbox.queries().outbox().byEventNo(eventNo));
    }
}
