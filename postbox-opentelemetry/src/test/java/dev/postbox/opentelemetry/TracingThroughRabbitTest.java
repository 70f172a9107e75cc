package dev.postbox.opentelemetry;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageWorker;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.rabbitmq.RabbitConsumer;
import dev.postbox.rabbitmq.RabbitPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.relay.Routes;
import dev.postbox.testing.TestDatabase;
import dev.postbox.tracing.LogContext;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.MDC;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One trace from the request that placed an order to the consumer that reserved stock, across the real relay,
 * the local RabbitMQ and the inbox, on PostgreSQL, with the OpenTelemetry SDK's in-memory exporter; the
 * message-event worker's and the compensation job's spans; the log context; and a scan of every log line this
 * class's run wrote (logback-test.xml writes them to {@code target/postbox-tracing-test-<fork>.log}, see the pom) for the
 * payload marker: Postbox logs no payload, on failure paths included.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TracingThroughRabbitTest {

    private static final String MARKER = "PAYLOAD-MARKER-7f3a91";
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");

    private final String prefix = "pbtr-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private OpenTelemetrySdk otel;
    private TestDatabase db;
    private HikariDataSource ds;
    private Postbox postbox;
    private com.rabbitmq.client.Connection adminConnection;
    private Channel admin;
    private String exchange;
    private String queue;
    private String refundTrace;

    @BeforeAll
    void setUp() throws Exception {
        otel = InMemorySdk.exportingTo(spans);
        db = TestDatabase.postgres(null);
        HikariConfig config = new HikariConfig();
        config.setDataSource(db.dataSource());
        config.setMaximumPoolSize(6);
        ds = new HikariDataSource(config);
        postbox = Postbox.builder(ds).source("order-service").tracing(new OpenTelemetryTracing(otel)).build();
        postbox.schema().install();
        exec("CREATE TABLE orders (order_no VARCHAR(64) PRIMARY KEY, status VARCHAR(16) NOT NULL)");
        exec("CREATE TABLE stock_reservation (order_no VARCHAR(64) PRIMARY KEY, trace_id VARCHAR(32), baggage VARCHAR(64),"
                + " mdc_event_no VARCHAR(64), mdc_trace_id VARCHAR(32), mdc_span_id VARCHAR(16))");
        adminConnection = factory().newConnection("postbox-tracing-test");
        admin = adminConnection.createChannel();
        exchange = prefix + "-orders";
        queue = prefix + "-inventory";
        admin.exchangeDeclare(exchange, "topic", true);
        admin.queueDeclare(queue, true, false, false, Map.of());
        admin.queueBind(queue, exchange, "#");
    }

    @AfterAll
    void tearDown() throws Exception {
        try {
            if (admin != null) {
                admin.queueDelete(queue);
                admin.exchangeDelete(exchange);
                adminConnection.close();
            }
        } finally {
            if (ds != null) {
                ds.close();
            }
            if (db != null) {
                db.close();
            }
            if (otel != null) {
                otel.close();
            }
        }
    }

    @Test
    @Order(1)
    void oneTraceRunsFromTheRequestThroughTheRelayAndTheBrokerToTheConsumer() throws Exception {
        spans.reset();
        String orderNo = "ORD-" + prefix;
        Span request = otel.getTracer("test").spanBuilder("POST /orders").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope r = request.makeCurrent(); Scope b = Baggage.builder().put("tenant", "acme").build().makeCurrent()) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO orders VALUES ('" + orderNo + "', 'CREATED')");
                }
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("ORDER_CREATED:" + orderNo)
                        .aggregate("ORDER", orderNo).eventType("ORDER_CREATED").channel("MQ").topic(exchange)
                        .routingKey("order.created").payload("{\"orderNo\":\"" + orderNo + "\",\"note\":\"" + MARKER + "\"}")
                        .build());
                c.commit();
            }
        } finally {
            request.end();
        }
        String traceId = request.getSpanContext().getTraceId();
        assertThat(string("SELECT trace_id FROM " + postbox.tables().outbox())).as("trace_id of the row").isEqualTo(traceId);
        assertThat(string("SELECT event_headers::text FROM " + postbox.tables().outbox()))
                .contains("\"00-" + traceId + "-").contains("tenant=acme");

        EnvelopeConsumer reserve = new EnvelopeConsumer(ds, postbox.inbox(), "inventory", (c, e) -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO stock_reservation VALUES ('" + e.aggregateId() + "', '"
                        + Span.current().getSpanContext().getTraceId() + "', '" + Baggage.current().getEntryValue("tenant")
                        + "', '" + MDC.get(LogContext.EVENT_NO) + "', '" + MDC.get(LogContext.TRACE_ID) + "', '"
                        + MDC.get(LogContext.SPAN_ID) + "')");
            }
        }).traced(postbox.tracing(), "rabbitmq", queue);
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             RabbitConsumer consumer = RabbitConsumer.builder(factory(), queue, reserve).start();
             Relay relay = postbox.relay(publisher).instanceId("traced").start()) {
            await("stock reserved", () -> count("SELECT COUNT(*) FROM stock_reservation") == 1);
            await("the process span ended", () -> find("process " + queue) != null);
        }

        SpanData create = find("create " + exchange);
        SpanData send = find("send " + exchange);
        SpanData process = find("process " + queue);
        assertThat(create).as("create span").isNotNull();
        assertThat(send).as("send span").isNotNull();
        assertThat(create.getTraceId()).isEqualTo(traceId);
        assertThat(create.getParentSpanId()).as("create is the request's child").isEqualTo(request.getSpanContext().getSpanId());
        assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(create.getAttributes().get(OPERATION)).isEqualTo("create");
        assertThat(create.getAttributes().get(MESSAGE_ID)).isEqualTo("ORDER_CREATED:" + orderNo);

        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(send.getAttributes().get(SYSTEM)).isEqualTo("rabbitmq");
        assertThat(send.getAttributes().get(DESTINATION)).isEqualTo(exchange);
        assertThat(send.getAttributes().get(OPERATION)).isEqualTo("send");
        assertThat(send.getLinks()).extracting(LinkData::getSpanContext)
                .as("send links to the creation context").anySatisfy(l -> {
                    assertThat(l.getTraceId()).isEqualTo(traceId);
                    assertThat(l.getSpanId()).isEqualTo(create.getSpanId());
                });
        assertThat(send.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);

        assertThat(process.getTraceId()).as("the consumer is in the request's trace").isEqualTo(traceId);
        assertThat(process.getParentSpanId()).as("process is the creation context's child").isEqualTo(create.getSpanId());
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(process.getAttributes().get(SYSTEM)).isEqualTo("rabbitmq");
        assertThat(process.getAttributes().get(DESTINATION)).isEqualTo(queue);
        assertThat(process.getAttributes().get(MESSAGE_ID)).isEqualTo("ORDER_CREATED:" + orderNo);
        assertThat(process.getAttributes().get(GROUP)).isEqualTo("inventory");

        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM stock_reservation")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("trace_id")).as("the handler ran in the process span").isEqualTo(traceId);
            assertThat(rs.getString("baggage")).as("baggage crossed the broker").isEqualTo("acme");
            assertThat(rs.getString("mdc_event_no")).isEqualTo("ORDER_CREATED:" + orderNo);
            assertThat(rs.getString("mdc_trace_id")).isEqualTo(traceId);
            assertThat(rs.getString("mdc_span_id")).isEqualTo(process.getSpanId());
        }
        assertThat(MDC.get(LogContext.EVENT_NO)).as("the log context is restored").isNull();
    }

    @Test
    @Order(2)
    void theWorkerAndTheCompensationJobTraceAndLogTheirEventsWithoutPayloads() throws Exception {
        spans.reset();
        Span request = otel.getTracer("test").spanBuilder("POST /refunds").startSpan();
        try (Scope r = request.makeCurrent(); Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().create(c, MessageEvent.builder().eventNo("REFUND:1").eventType("REFUND").biz("ORDER", "O-9")
                    .payload("{\"note\":\"" + MARKER + "\"}").maxRetries(0).build());
            c.commit();
        } finally {
            request.end();
        }
        String traceId = request.getSpanContext().getTraceId();
        refundTrace = traceId;
        Map<String, String> seen = new ConcurrentHashMap<>();
        try (MessageWorker worker = postbox.worker().instanceId("w1").handler("REFUND", e -> {
            seen.put("trace", Span.current().getSpanContext().getTraceId());
            seen.put("event_no", String.valueOf(MDC.get(LogContext.EVENT_NO)));
            seen.put("aggregate", String.valueOf(MDC.get(LogContext.AGGREGATE)));
            throw new IllegalStateException("refund gateway refused");
        }).pollInterval(Duration.ofMillis(50), Duration.ofMillis(200)).start()) {
            await("the message event went DEAD", () -> count("SELECT COUNT(*) FROM " + postbox.tables().message()
                    + " WHERE event_status = 5") == 1);
        }
        SpanData handled = find("process REFUND");
        assertThat(handled).as("worker span").isNotNull();
        assertThat(handled.getTraceId()).as("the worker joins the write's trace").isEqualTo(traceId);
        SpanData created = find("create REFUND");
        assertThat(created).as("the write's create span").isNotNull();
        assertThat(created.getParentSpanId()).as("create is the request's child").isEqualTo(request.getSpanContext().getSpanId());
        assertThat(handled.getParentSpanId()).as("the worker's span is the write's child").isEqualTo(created.getSpanId());
        assertThat(handled.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(seen).containsEntry("trace", traceId).containsEntry("event_no", "REFUND:1")
                .containsEntry("aggregate", "ORDER:O-9");

        CompensationJob job = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL").maxAttempts(1)
                .scan((c, limit) -> List.of("O-7"))
                .action((c, key) -> {
                    seen.put("compensation.aggregate", String.valueOf(MDC.get(LogContext.AGGREGATE)));
                    throw new IllegalStateException("order " + key + " is locked");
                }).build();
        CompensationJob.Run run = job.runOnce();
        assertThat(run.failed() + run.gaveUp()).as("the action failed: " + run).isEqualTo(1);
        SpanData compensation = find("process compensation ORDER/TIMEOUT_CANCEL");
        assertThat(compensation).as("compensation span").isNotNull();
        assertThat(compensation.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(compensation.getAttributes().get(AttributeKey.stringKey("postbox.compensation.biz_key"))).isEqualTo("O-7");
        assertThat(seen).containsEntry("compensation.aggregate", "ORDER:O-7");

        // a relay event no route takes goes DEAD at once and is logged
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("LOST:1").aggregate("ORDER", "O-8").eventType("X")
                    .channel("NOWHERE").payload("{\"note\":\"" + MARKER + "\"}").maxRetries(0).build());
            c.commit();
        }
        try (RabbitPublisher publisher = RabbitPublisher.builder(factory()).build();
             Relay relay = postbox.relay(Routes.of("MQ", publisher)).instanceId("routed").start()) {
            await("the unrouted event went DEAD", () -> count("SELECT COUNT(*) FROM " + postbox.tables().outbox()
                    + " WHERE event_no = 'LOST:1' AND publish_status = 5") == 1);
        }
    }

    @Test
    @Order(3)
    void noLogLineOfTheRunHoldsAPayload() throws Exception {
        Path log = Path.of(System.getProperty("postbox.test.log", "target/postbox-tracing-test.log"));
        assertThat(log).as("logback-test.xml writes this run's log there").exists();
        String all = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(all).as("the failure paths were logged: the scan looks at real lines")
                .contains("REFUND:1").contains("is DEAD").contains("LOST:1").contains("TIMEOUT_CANCEL");
        assertThat(all.lines().filter(l -> l.contains("is DEAD")).toList()).as("DEAD lines carry the log context")
                .anyMatch(l -> l.contains("event_no=REFUND:1 aggregate=ORDER:O-9 trace_id=" + refundTrace))
                .anyMatch(l -> l.contains("event_no=LOST:1 aggregate=ORDER:O-8"));
        assertThat(all.lines().filter(l -> l.contains("Compensation ORDER/O-7/TIMEOUT_CANCEL failed")).toList())
                .as("the compensation's failure line names its key and trace")
                .anyMatch(l -> l.contains("aggregate=ORDER:O-7 trace_id=") && !l.contains("trace_id= "));
        assertThat(all.lines().filter(l -> l.contains(MARKER)).toList()).as("log lines holding a payload").isEmpty();
    }

    private SpanData find(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst().orElse(null);
    }

    private static ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(System.getProperty("postbox.test.rabbitmq.host", "127.0.0.1"));
        f.setPort(Integer.getInteger("postbox.test.rabbitmq.port", 5672));
        f.setUsername("guest");
        f.setPassword("guest");
        f.setConnectionTimeout(5_000);
        return f;
    }

    private void exec(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private long count(String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private String string(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(50);
        }
    }
}
