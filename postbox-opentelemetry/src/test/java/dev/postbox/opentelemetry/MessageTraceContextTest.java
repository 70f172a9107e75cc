package dev.postbox.opentelemetry;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageWorker;
import dev.postbox.testing.TestDatabase;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message event's trace context on PostgreSQL with the OpenTelemetry SDK: the write stores its create span's
 * injected headers in {@code trace_context}; the worker's {@code process} span is that span's child and sees the
 * write's baggage; a context longer than the column loses baggage first; rows without a context (untraced, older
 * schema, or set by hand to something else) still run, joining the trace id alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MessageTraceContextTest {

    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String REMOTE_SPAN = "b7ad6b7169203331";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private OpenTelemetrySdk otel;
    private TestDatabase db;
    private Postbox traced;
    private Postbox untraced;

    @BeforeAll
    void setUp() {
        otel = InMemorySdk.exportingTo(spans);
        db = TestDatabase.postgres(null);
        traced = Postbox.builder(db.dataSource()).source("billing").tracing(new OpenTelemetryTracing(otel)).build();
        traced.schema().install();
        untraced = Postbox.builder(db.dataSource()).source("billing").build();
    }

    @AfterAll
    void tearDown() {
        if (db != null) {
            db.close();
        }
        if (otel != null) {
            otel.close();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        spans.reset();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM " + traced.tables().message());
        }
    }

    @Test
    void theWriteStoresItsCreateContextAndTheWorkersSpanIsItsChildWithTheWritesBaggage() throws Exception {
        write(traced, "PAID:1", "tenant", "acme");
        SpanData request = find("POST /payments");
        SpanData create = find("create ORDER_PAID");
        assertThat(create.getParentSpanId()).as("create is the request's child").isEqualTo(request.getSpanId());

        Map<String, String> stored = traced.queries().messages().byEventNo("PAID:1").orElseThrow().traceContext();
        assertThat(stored).containsEntry("traceparent", "00-" + TRACE + "-" + create.getSpanId() + "-01")
                .containsEntry("tracestate", "vendor=opaque-value").containsEntry("baggage", "tenant=acme");
        assertThat(storedText("PAID:1")).as("the column holds a JSON object").startsWith("{\"traceparent\":");

        Map<String, String> seen = handleAll(traced, 1);
        SpanData process = find("process ORDER_PAID");
        assertThat(process.getTraceId()).isEqualTo(TRACE);
        assertThat(process.getParentSpanId()).as("the worker's span is the create span's child").isEqualTo(create.getSpanId());
        assertThat(process.getSpanContext().getTraceState().get("vendor")).as("tracestate carried").isEqualTo("opaque-value");
        assertThat(seen).containsEntry("PAID:1.tenant", "acme").containsEntry("PAID:1.span", process.getSpanId());
    }

    @Test
    void aContextLongerThanTheColumnLosesItsBaggageAndKeepsTheParent() throws Exception {
        write(traced, "PAID:2", "note", "x".repeat(2500));
        SpanData create = find("create ORDER_PAID");
        String text = storedText("PAID:2");
        assertThat(text.length()).as("fits the column").isLessThanOrEqualTo(2000);
        MessageRecord row = traced.queries().messages().byEventNo("PAID:2").orElseThrow();
        assertThat(row.traceContext()).as("baggage dropped first; the parent and tracestate kept")
                .containsOnlyKeys("traceparent", "tracestate")
                .containsEntry("traceparent", "00-" + TRACE + "-" + create.getSpanId() + "-01");

        Map<String, String> seen = handleAll(traced, 1);
        assertThat(find("process ORDER_PAID").getParentSpanId()).isEqualTo(create.getSpanId());
        assertThat(seen).as("the handler sees no baggage").containsEntry("PAID:2.baggage.entries", "0");
    }

    @Test
    void rowsWithoutAContextStillRunJoiningTheTraceIdAlone() throws Exception {
        // an untraced application names a trace id itself: no create span, no context stored
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            untraced.messages().create(c, event("PAID:3").traceId(TRACE).build());
            untraced.messages().create(c, event("PAID:4").traceId(TRACE).build());
            c.commit();
        }
        assertThat(storedText("PAID:3")).as("nothing traced, nothing stored").isNull();
        // a context someone set by hand that is no JSON object counts as none
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("UPDATE " + traced.tables().message() + " SET trace_context = 'traceparent: 00-1' WHERE event_no = 'PAID:4'");
        }
        assertThat(spans.getFinishedSpanItems()).isEmpty();

        handleAll(traced, 2);
        assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName).containsOnly("process ORDER_PAID").hasSize(2);
        for (SpanData process : spans.getFinishedSpanItems()) {
            assertThat(process.getTraceId()).as("joins the named trace").isEqualTo(TRACE);
            assertThat(process.getParentSpanId()).as("under a span id derived from the event number")
                    .isNotEqualTo(SpanContext.getInvalid().getSpanId());
        }
        assertThat(count("SELECT COUNT(*) FROM " + traced.tables().message() + " WHERE event_status = 2"))
                .as("both handled").isEqualTo(2);
    }

    /** Writes ORDER_PAID under a request span whose remote parent carries a tracestate, with one baggage entry. */
    private void write(Postbox postbox, String eventNo, String baggageKey, String baggageValue) throws SQLException {
        SpanContext remote = SpanContext.createFromRemoteParent(TRACE, REMOTE_SPAN, TraceFlags.getSampled(),
                TraceState.builder().put("vendor", "opaque-value").build());
        Context parent = Context.root().with(Span.wrap(remote))
                .with(Baggage.builder().put(baggageKey, baggageValue).build());
        Span request = otel.getTracer("test").spanBuilder("POST /payments").setParent(parent).startSpan();
        try (Scope b = parent.makeCurrent(); Scope r = request.makeCurrent(); Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().create(c, event(eventNo).build());
            c.commit();
        } finally {
            request.end();
        }
    }

    private static MessageEvent.Builder event(String eventNo) {
        return MessageEvent.builder().eventNo(eventNo).eventType("ORDER_PAID").biz("ORDER", "O-1").payload("{}");
    }

    /** Runs a worker until {@code n} events succeeded; what each handler call saw, by event number. */
    private Map<String, String> handleAll(Postbox postbox, int n) throws Exception {
        Map<String, String> seen = new ConcurrentHashMap<>();
        try (MessageWorker worker = postbox.worker().instanceId("w-trace").handler("ORDER_PAID", e -> {
            String tenant = Baggage.current().getEntryValue("tenant");
            seen.put(e.eventNo() + ".tenant", tenant == null ? "none" : tenant);
            seen.put(e.eventNo() + ".baggage.entries", String.valueOf(Baggage.current().size()));
            seen.put(e.eventNo() + ".span", Span.current().getSpanContext().getSpanId());
        }).pollInterval(Duration.ofMillis(20), Duration.ofMillis(100)).start()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (count("SELECT COUNT(*) FROM " + postbox.tables().message() + " WHERE event_status = 2") < n) {
                assertThat(System.nanoTime() - deadline).as("events handled in 30 s").isNegative();
                Thread.sleep(20);
            }
        }
        return seen;
    }

    private SpanData find(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans.getFinishedSpanItems()));
    }

    private String storedText(String eventNo) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT trace_context FROM " + traced.tables().message() + " WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as(eventNo + " stored").isTrue();
                return rs.getString(1);
            }
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
