package dev.postbox.smoke;

import dev.postbox.Postbox;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The smoke application over HTTP, bound per database by a subclass. One source for the Boot 3.5 and 4.0 modules
 * (both build ../src): JDK HttpClient, no Boot test-client classes, so the code is the same on both lines.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "postbox.metrics.refresh-interval=200ms", "postbox.relay.poll-interval-max=200ms",
        "postbox.worker.poll-interval-max=200ms",
        // Boot 3's test support replaces metric export by a simple registry unless told otherwise
        "spring.test.observability.auto-configure=true"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
abstract class SmokeContract {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The component's status, whether Jackson writes it before (Boot 3) or after (Boot 4) its details. */
    private static final Pattern POSTBOX_STATUS = Pattern.compile(
            "\"postbox\":\\{(?:\"details\":\\{(?:[^{}]|\\{[^{}]*})*},)?\"status\":\"(\\w+)\"");

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    Postbox postbox;
    @Autowired
    Orders orders;
    @Autowired
    OrderEvents events;
    @Autowired
    Tasks tasks;

    /** Points spring.datasource at {@code db}. */
    static void datasource(DynamicPropertyRegistry registry, TestDatabase db) {
        try (Connection c = db.dataSource().getConnection()) {
            boolean pg = db.kind().equals("postgresql");
            String url = pg ? TestDatabase.PG_URL + "?currentSchema=" + c.getSchema() : c.getMetaData().getURL();
            registry.add("spring.datasource.url", () -> url);
            registry.add("spring.datasource.username", () -> pg ? TestDatabase.PG_USER : "sa");
        } catch (SQLException e) {
            throw new IllegalStateException("test database " + db.kind() + " not reachable", e);
        }
    }

    /** Drops {@code db} when the context closes, after the relay, worker and metrics stopped. */
    static void dropWith(ConfigurableApplicationContext context, TestDatabase db) {
        ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("smokeTestDatabase", db::close);
    }

    @Test
    void committedOrderHasItsRowAndItsEventReachesTheSubscriber() throws Exception {
        String no = unique("C");
        assertThat(post("/orders/" + no).statusCode()).isEqualTo(201);
        assertThat(orderRows(no)).isEqualTo(1);
        await("the subscriber received the event", () -> events.received().contains(Orders.eventNo(no)));
        await("the event is PUBLISHED", () -> outboxStatus(no) == OutboxStatus.PUBLISHED);
    }

    @Test
    void rolledBackOrderLeavesNeitherRowNorEvent() throws Exception {
        String no = unique("R");
        assertThat(post("/orders/" + no + "?fail=true").statusCode()).isEqualTo(422);
        assertThat(orderRows(no)).isZero();
        assertThat(postbox.queries().outbox().byEventNo(Orders.eventNo(no))).isEmpty();
    }

    @Test
    void writeWithoutTransactionIsRefused() {
        String no = unique("N");
        assertThatThrownBy(() -> orders.writeWithoutTransaction(no)).isInstanceOf(TransactionRequiredException.class);
        assertThat(postbox.queries().outbox().byEventNo(Orders.eventNo(no))).isEmpty();
    }

    @Test
    void messageHandlerRunsTheSubmittedTask() throws Exception {
        String no = unique("T");
        assertThat(post("/tasks/" + no).statusCode()).isEqualTo(202);
        await("the handler ran", () -> tasks.done().contains(no));
        await("the task SUCCEEDED", () -> postbox.queries().messages().byEventNo(no)
                .map(MessageRecord::status).orElse(null) == MessageStatus.SUCCEEDED);
    }

    @Test
    void healthIsUpUntilAnEventGoesDead() throws Exception {
        assertThat(postboxHealth()).isEqualTo("UP");
        String no = unique("D");
        assertThat(post("/orders/" + no + "?channel=NOWHERE").statusCode()).isEqualTo(201);
        await("the event is DEAD", () -> outboxStatus(no) == OutboxStatus.DEAD);
        await("the postbox health is DOWN", () -> "DOWN".equals(postboxHealth()));
        assertThat(get("/actuator/health").body()).contains("\"dead\":1");
    }

    @Test
    void prometheusShowsThePostboxMeters() throws Exception {
        String no = unique("P");
        assertThat(post("/orders/" + no).statusCode()).isEqualTo(201);
        await("the event is PUBLISHED", () -> outboxStatus(no) == OutboxStatus.PUBLISHED);
        String scrape = get("/actuator/prometheus").body();
        Matcher published = Pattern.compile(
                "postbox_publish_outcomes_total\\{[^}]*channel=\"EVENT_BUS\",destination=\"event-bus\",outcome=\"published\"[^}]*} ([0-9.E]+)")
                .matcher(scrape);
        assertThat(published.find()).as(scrape).isTrue();
        assertThat(Double.parseDouble(published.group(1))).isGreaterThanOrEqualTo(1);
        assertThat(scrape).contains("postbox_outbox_backlog{", "status=\"pending\"", "postbox_outbox_dead",
                "postbox_outbox_oldest_age_seconds", "postbox_publish_latency_seconds_bucket", "postbox_table_rows{",
                "postbox_relay_instances{", "postbox_relay_fenced_total", "scope=\"table\"");
        String endpoint = get("/actuator/postbox").body();
        assertThat(endpoint).as("the read-only postbox endpoint on this Boot line")
                .contains("\"backlog\"", "\"relays\"", "\"lastErrors\"", "\"readAt\"");
    }

    private String postboxHealth() {
        try {
            String body = get("/actuator/health").body();
            Matcher m = POSTBOX_STATUS.matcher(body);
            return m.find() ? m.group(1) : "no postbox component in " + body;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private int orderRows(String no) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM smoke_order WHERE order_no = ?", Integer.class, no);
    }

    private OutboxStatus outboxStatus(String orderNo) {
        return postbox.queries().outbox().byEventNo(Orders.eventNo(orderNo)).map(OutboxRecord::status).orElse(null);
    }

    private HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void await(String what, BooleanSupplier condition) {
        dev.postbox.testing.Await.until(what, WAIT, condition);
    }
}
