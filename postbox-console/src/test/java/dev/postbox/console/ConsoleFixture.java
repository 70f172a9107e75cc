package dev.postbox.console;

import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageWorker;
import dev.postbox.operations.Operations;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.Relay;
import dev.postbox.spi.NonRetryableException;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A running console on a real database: the real {@code Operations} of the suite's Postbox, a
 * {@link ConsoleApi} with four Basic users and a read-only twin, each behind a server ({@link ConsoleServer}
 * by default; a binding may serve them through {@link ConsoleServlet} in a servlet container instead), and
 * before each test the same story in the tables, made by the real relay, message worker, inbox and
 * compensation guard:
 * <ul>
 *   <li>aggregate ORDER/ORD-1: its ORDER_CREATED was refused by the broker (DEAD), ORDER_PAID and ORDER_SHIPPED
 *       wait behind it; a message event SEND_EMAIL of ORD-1 is DEAD (its handler threw a non-retryable
 *       error); its TIMEOUT_CANCEL compensation FAILED;</li>
 *   <li>aggregate ORDER/{@value #ODD_ID}: a key with a slash, a space and non-ASCII; its ORDER_CREATED is DEAD,
 *       one event waits behind;</li>
 *   <li>ORDER/ORD-3: published, consumed by "inventory"; its SEND_EMAIL message event succeeded;</li>
 *   <li>INVOICE/INV-1..INV-5: one INVOICE_ISSUED each, all DEAD (the bulk action's material).</li>
 * </ul>
 * Every payload holds {@value #SECRET} and every event a header whose value is {@value #SECRET_HEADER}: neither
 * may appear in any answer but a reveal.
 */
abstract class ConsoleFixture extends DatabaseContract {

    static final String SECRET = "SECRET-PAYLOAD-7f3a";
    static final String SECRET_HEADER = "SECRET-HEADER-91c2";
    static final String ODD_ID = "ORD 2/ü😀";
    static final String VIEWER = "vera";
    static final String OPERATOR = "otto";
    static final String REVEALER = "rita";
    static final String ADMIN = "adam";

    protected Operations operations;
    protected ConsoleApi api;
    protected ConsoleApi readOnlyApi;
    private Endpoint server;
    private Endpoint readOnlyServer;
    protected ConsoleClient client;
    protected ConsoleClient readOnlyClient;

    /** A console being served: where, and how to stop it. */
    interface Endpoint extends AutoCloseable {
        URI base();

        @Override
        void close() throws Exception;
    }

    /** Serves {@code api} on a free loopback port at mount path /postbox; the default is {@link ConsoleServer}. */
    protected Endpoint serve(ConsoleApi api) {
        ConsoleServer s = ConsoleServer.builder(api).port(0).start();
        return new Endpoint() {
            @Override
            public URI base() {
                return s.uri();
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }

    static BasicAuthenticator users() {
        String hash = PasswordHash.create(ConsoleClient.PASSWORD.toCharArray(), PasswordHash.MIN_ITERATIONS);
        return BasicAuthenticator.builder()
                .user(VIEWER, hash, Role.VIEWER)
                .user(OPERATOR, hash, Role.OPERATOR)
                .user(REVEALER, hash, Role.OPERATOR, Permission.REVEAL_PAYLOAD)
                .user(ADMIN, hash, Role.ADMIN)
                .build();
    }

    @BeforeAll
    final void startConsoles() {
        operations = postbox.operations(OperationsConfig.defaults());
        BasicAuthenticator users = users();
        api = ConsoleApi.builder(operations).authenticator(users).build();
        readOnlyApi = ConsoleApi.builder(postbox.operations(OperationsConfig.defaults().readOnly(true)))
                .authenticator(users).readOnly(true).build();
        server = serve(api);
        readOnlyServer = serve(readOnlyApi);
        client = new ConsoleClient(server.base());
        readOnlyClient = new ConsoleClient(readOnlyServer.base());
    }

    @AfterAll
    final void stopConsoles() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {server, readOnlyServer, api, readOnlyApi}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @BeforeEach
    final void tellTheStory() throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String t : new String[] {postbox.tables().adminAction(), postbox.tables().eventAttempt(),
                    postbox.tables().relayInstance(), postbox.tables().relayStats()}) {
                st.execute("DELETE FROM " + t);
            }
        }
        client.answers.clear();
        inTx(c -> {
            write(c, "ORDER_CREATED", "ORD-1");
            write(c, "ORDER_PAID", "ORD-1");
            write(c, "ORDER_SHIPPED", "ORD-1");
            write(c, "ORDER_CREATED", ODD_ID);
            write(c, "ORDER_PAID", ODD_ID);
            write(c, "ORDER_CREATED", "ORD-3");
            for (int i = 1; i <= 5; i++) {
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("INVOICE_ISSUED:INV-" + i).aggregate("INVOICE", "INV-" + i)
                        .eventType("INVOICE_ISSUED").channel("MQ").topic("invoices")
                        .payload("{\"invoice\":\"INV-" + i + "\",\"note\":\"" + SECRET + "\"}")
                        .header("tenant", SECRET_HEADER).build());
            }
            postbox.messages().create(c, MessageEvent.builder().eventNo("SEND_EMAIL:ORD-1").eventType("SEND_EMAIL")
                    .biz("ORDER", "ORD-1").payload("{\"to\":\"" + SECRET + "\"}").build());
            postbox.messages().create(c, MessageEvent.builder().eventNo("SEND_EMAIL:ORD-3").eventType("SEND_EMAIL")
                    .biz("ORDER", "ORD-3").payload("{\"to\":\"" + SECRET + "\"}").build());
            return null;
        });
        Set<String> refused = Set.of("ORDER_CREATED:ORD-1", "ORDER_CREATED:" + ODD_ID);
        Publisher broker = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                boolean poison = refused.contains(r.eventNo()) || r.eventType().equals("INVOICE_ISSUED");
                out.add(CompletableFuture.completedFuture(poison ? PublishResult.dead("schema registry: field amount"
                        + " must be a number") : PublishResult.published()));
            }
            return out;
        };
        try (Relay relay = postbox.relay(broker).instanceId("relay-test").batchSize(100).poolSize(2)
                .clockSkewCheck(false).build()) {
            for (int i = 0; i < 20 && relay.runOnce().claimed() > 0; i++) {
                // until nothing is claimable
            }
        }
        try (MessageWorker worker = postbox.worker().instanceId("worker-test").handler("SEND_EMAIL", e -> {
            if (e.bizId().equals("ORD-1")) {
                throw new NonRetryableException("mailbox " + e.bizId() + " does not exist");
            }
        }).build()) {
            for (int i = 0; i < 5 && worker.runOnce().claimed() > 0; i++) {
                // until nothing is claimable
            }
        }
        inTx(c -> {
            postbox.inbox().once(c, "inventory", "ORDER_CREATED:ORD-3", () -> { });
            postbox.compensations().once(c, "ORDER", "ORD-1", "TIMEOUT_CANCEL", conn -> {
                throw new IllegalStateException("payment service down");
            });
            return null;
        });
    }

    private void write(Connection c, String type, String orderNo) {
        postbox.outbox().write(c, OutboxEvent.builder().eventNo(type + ":" + orderNo).aggregate("ORDER", orderNo)
                .eventType(type).channel("MQ").topic("orders").traceId("trace-" + orderNo.hashCode())
                .payload("{\"order\":\"" + orderNo.replace("\"", "") + "\",\"card\":\"" + SECRET + "\"}")
                .header("tenant", SECRET_HEADER).build());
    }

    /** An operator of the console's own users, for calling {@link Operations} directly. */
    static Operator operator(String name) {
        return switch (name) {
            case VIEWER -> Operator.of(name, Role.VIEWER);
            case ADMIN -> Operator.of(name, Role.ADMIN);
            case REVEALER -> Operator.of(name, Role.OPERATOR).with(Permission.REVEAL_PAYLOAD);
            default -> Operator.of(name, Role.OPERATOR);
        };
    }
}
