package dev.postbox.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.Postbox;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code postbox-server run} as a real process relaying PostgreSQL to an HTTP endpoint, its tracing configured the way
 * an operator does it ({@code OTEL_*} variables, the file's {@code tracing:} section), exporting by OTLP
 * ({@code http/protobuf}) to a receiver of this test. The events are written in a request's trace through a Postbox
 * with {@link OpenTelemetryTracing} (on an SDK of the test keeping its spans in memory), so each carries its
 * {@code create} span's {@code traceparent}. No protobuf library:
 * an OTLP body holds span names and attribute values as plain UTF-8 and trace and span ids as their raw bytes.
 * Logs: target/server-process/tracing-*.
 */
class ServerTracingProcessTest {

    static final String PREFIX = "trc_";
    static final Pattern TRACEPARENT = Pattern.compile("\"traceparent\"\\s*:\\s*\"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}\"");

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    /** The route's channel, the HTTP endpoint's name and so the send span's destination: unique per run. */
    private final String channel = "TRACED_" + run.toUpperCase(Locale.ROOT);
    private final Path dir = Path.of("target", "server-process", "tracing-" + run);
    private final List<byte[]> exports = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private TestDatabase pg;
    private HttpServer endpoints;
    private HttpServer defaultCollector;
    private ServerProcess server;

    @BeforeEach
    void setUp() throws Exception {
        assertThat(System.getenv().keySet()).as("premise: this JVM's environment (which the server inherits) sets no"
                + " OTEL_ variable").noneMatch(k -> k.startsWith("OTEL_"));
        Files.createDirectories(dir);
        pg = TestDatabase.postgres(null);
        Postbox.builder(pg.dataSource()).tablePrefix(PREFIX).build().schema().install();
        endpoints = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        endpoints.createContext("/hook", this::hook);
        endpoints.createContext("/v1/traces", this::collect);
        endpoints.start();
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
        endpoints.stop(0);
        if (defaultCollector != null) {
            defaultCollector.stop(0);
        }
        pg.close();
    }

    /** The relay's endpoint: 204, except 422 (DEAD at once) for an event number ending in {@code -poison}. */
    private void hook(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            String eventNo = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            boolean poison = eventNo != null && eventNo.endsWith("-poison");
            if (!poison) {
                delivered.add(eventNo);
            }
            exchange.sendResponseHeaders(poison ? 422 : 204, -1);
        }
    }

    /** An OTLP/HTTP collector: keeps each request body (gunzipped when it came compressed), answers 200. */
    private void collect(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream in = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                in = new GZIPInputStream(in);
            }
            byte[] body = in.readAllBytes();
            if ("POST".equals(exchange.getRequestMethod())) {
                exports.add(body);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private Path config(String tracing) throws IOException {
        return config(tracing, false);
    }

    private Path config(String tracing, boolean jsonLogs) throws IOException {
        Path file = dir.resolve("server-" + UUID.randomUUID().toString().substring(0, 4) + ".yml");
        Files.writeString(file, """
                server: {address: 127.0.0.1, port: 0, instance-id: traced-%s, json-logs: %s}
                sources:
                  orders: {jdbc-url: '%s', username: %s, table-prefix: %s, relay: {poll-interval-max: 100ms}}
                destinations:
                  hook: {type: http, url: 'http://127.0.0.1:%d/hook'}
                routes:
                  - {source: orders, channel: %s, destination: hook}
                %s""".formatted(run, jsonLogs, pg.jdbcUrl(), pg.user(), PREFIX, endpoints.getAddress().getPort(), channel, tracing));
        return file;
    }

    private ServerProcess start(String name, Path config, Map<String, String> env) {
        server = ServerProcess.start(name, dir.resolve(name + ".out"), dir.resolve(name + ".err"), env, "run",
                config.toString());
        server.awaitReady(Duration.ofSeconds(30));
        return server;
    }

    /** The trace of a write: the request's trace id, and the span id of each event's {@code create} span. */
    record Written(String traceId, Map<String, String> createSpans) {
    }

    /**
     * Writes {@code ok} and {@code poison} in one transaction inside a request span, through a Postbox with
     * {@link OpenTelemetryTracing} on an SDK of this test whose spans are kept in memory.
     */
    private Written writeInARequestsTrace(String ok, String poison) throws SQLException {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        Postbox writer = Postbox.builder(pg.dataSource()).tablePrefix(PREFIX).source("tracing-test")
                .tracing(new OpenTelemetryTracing(sdk)).build();
        Span request = sdk.getTracer("test").spanBuilder("POST /orders").startSpan();
        try (Scope ignored = request.makeCurrent(); Connection c = pg.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (String no : List.of(ok, poison)) {
                writer.outbox().write(c, OutboxEvent.builder().eventNo(no).aggregate("ORDER", "o-" + run)
                        .eventType("ORDER_CREATED").channel(channel).payload("{\"run\":\"" + run + "\"}").build());
            }
            c.commit();
        } finally {
            request.end();
        }
        Map<String, String> created = new java.util.HashMap<>();
        for (SpanData span : spans.getFinishedSpanItems()) {
            String no = span.getAttributes().get(AttributeKey.stringKey("messaging.message.id"));
            if (span.getName().equals("create " + channel) && no != null) {
                created.put(no, span.getSpanId());
            }
        }
        sdk.close();
        assertThat(created).as("the write's create spans").containsOnlyKeys(ok, poison);
        return new Written(request.getSpanContext().getTraceId(), created);
    }

    private String column(String eventNo, String column) {
        try (Connection c = pg.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM " + PREFIX
                     + "outbox_event WHERE event_no = ?")) {
            ps.setString(1, eventNo);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("event " + eventNo + " in the outbox").isTrue();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void awaitRelayed(String ok, String poison) {
        Await.until(ok + " PUBLISHED and delivered, " + poison + " DEAD", Duration.ofSeconds(30),
                () -> delivered.contains(ok)
                        && column(ok, "publish_status").equals(String.valueOf(OutboxStatus.PUBLISHED.code()))
                        && column(poison, "publish_status").equals(String.valueOf(OutboxStatus.DEAD.code())),
                () -> "ok " + column(ok, "publish_status") + ", poison " + column(poison, "publish_status"));
    }

    /** SIGTERM, the graceful stop (its last step exports what the tracer still holds); exit 0. */
    private void stop(ServerProcess p) {
        p.terminate();
        assertThat(p.awaitExit(Duration.ofSeconds(20))).as("exit code of the graceful stop; stderr:%n%s", p.stderr())
                .isZero();
    }

    private static boolean contains(byte[] body, byte[] part) {
        outer:
        for (int i = 0; i <= body.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (body[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** An OTLP {@code KeyValue} with a string value as protobuf writes it (short key and value). */
    private static byte[] stringAttribute(String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(0x0A); // KeyValue.key
        out.write(k.length);
        out.writeBytes(k);
        out.write(0x12); // KeyValue.value: an AnyValue ...
        out.write(v.length + 2);
        out.write(0x0A); // ... with its string_value
        out.write(v.length);
        out.writeBytes(v);
        return out.toByteArray();
    }

    private List<byte[]> exportsWith(byte[] part) {
        synchronized (exports) {
            return exports.stream().filter(b -> contains(b, part)).toList();
        }
    }

    @Test
    void theSendSpanLeavesTheServerByOtlpLinkedToTheWritesCreateSpanAndIsFlushedAtTheStop() throws Exception {
        ServerProcess p = start("tracing-on", config(""), Map.of(
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + endpoints.getAddress().getPort(),
                "OTEL_SERVICE_NAME", "postbox-server-" + run,
                "OTEL_BSP_SCHEDULE_DELAY", "60000")); // the batch processor holds the spans: only the stop flushes them
        String ok = "ev-" + run + "-ok";
        String poison = "ev-" + run + "-poison";
        Written written = writeInARequestsTrace(ok, poison);
        String traceId = written.traceId();
        String headers = column(ok, "event_headers");
        Matcher stored = TRACEPARENT.matcher(String.valueOf(headers));
        assertThat(stored.find()).as("the write stored its create span's context in the event's headers: %s", headers)
                .isTrue();
        assertThat(List.of(stored.group(1), stored.group(2))).containsExactly(traceId, written.createSpans().get(ok));
        awaitRelayed(ok, poison);
        assertThat(exports).as("premise: nothing exported before the stop (batch processor delay 60 s)").isEmpty();

        stop(p);

        byte[] spanName = ("send " + channel).getBytes(StandardCharsets.UTF_8);
        List<byte[]> withSend = exportsWith(spanName);
        assertThat(withSend).as("an OTLP export holding the span 'send %s' (%d exports received)", channel,
                exports.size()).isNotEmpty();
        byte[] body = withSend.get(0);
        assertThat(contains(body, HexFormat.of().parseHex(traceId)))
                .as("the send span links to the write's trace (its 16 raw bytes)").isTrue();
        written.createSpans().forEach((no, spanId) -> assertThat(contains(body, HexFormat.of().parseHex(spanId)))
                .as("... and to the create span of event %s (its 8 raw bytes)", no).isTrue());
        assertThat(contains(body, ("postbox-server-" + run).getBytes(StandardCharsets.UTF_8)))
                .as("the service name from OTEL_SERVICE_NAME").isTrue();
        assertThat(contains(body, stringAttribute("messaging.system", "http")))
                .as("messaging.system: the destination's client's (http), not the fallback 'postbox'").isTrue();

        String log = p.stderr();
        assertThat(log).contains("Tracing on (OTEL_TRACES_EXPORTER is otlp): service postbox-server-" + run
                + ", traces exporter otlp (http/protobuf to http://127.0.0.1:" + endpoints.getAddress().getPort() + ")");
        assertThat(log.lines().filter(l -> l.contains("WARN") && l.contains("is DEAD")).toList())
                .as("the DEAD event's warning carries its MDC keys, its trace id the write's")
                .anySatisfy(l -> assertThat(l).contains(" event_no=" + poison + " aggregate=ORDER:o-" + run
                        + " trace_id=" + traceId).doesNotContain("span_id="));
    }

    @Test
    void tracingEnabledFalseInTheFileWinsOverTheEnvironmentAndNothingIsExported() throws Exception {
        ServerProcess p = start("tracing-disabled", config("tracing: {enabled: false}\n"), Map.of(
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + endpoints.getAddress().getPort(),
                "OTEL_BSP_SCHEDULE_DELAY", "100"));
        String ok = "ev-" + run + "-ok";
        String poison = "ev-" + run + "-poison";
        writeInARequestsTrace(ok, poison);
        awaitRelayed(ok, poison);
        stop(p);
        assertThat(exports).as("OTLP exports of a server whose file says tracing.enabled: false").isEmpty();
        assertThat(p.stderr()).contains("Tracing off: tracing.enabled is false");
    }

    @Test
    void aServerNobodyAskedToTraceSendsNothingToTheDefaultCollectorPort() throws Exception {
        try {
            defaultCollector = HttpServer.create(new InetSocketAddress("127.0.0.1", 4318), 0);
            defaultCollector.createContext("/", this::collect);
            defaultCollector.start();
        } catch (BindException taken) {
            defaultCollector = null; // something else listens there: the log line below still proves no exporter was built
        }
        // naming a service and a protocol asks for no tracing; an exporter built anyway would post to localhost:4318
        ServerProcess p = start("tracing-default", config(""), Map.of("OTEL_SERVICE_NAME", "postbox-server-" + run,
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", "OTEL_BSP_SCHEDULE_DELAY", "100"));
        String ok = "ev-" + run + "-ok";
        String poison = "ev-" + run + "-poison";
        writeInARequestsTrace(ok, poison);
        awaitRelayed(ok, poison);
        stop(p);
        assertThat(exports).as("anything sent to 127.0.0.1:4318 or to the test's receiver").isEmpty();
        assertThat(p.stderr()).contains("Tracing off: nothing asks for it");
    }
    @Test
    void theConsoleExporterAndTheSdksOwnWarningsAreJsonLogLinesOfTheServer() throws Exception {
        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // nobody listens there once it is closed: the OTLP exports fail
        }
        ServerProcess p = start("tracing-console", config("", true), Map.of(
                "OTEL_TRACES_EXPORTER", "console,otlp",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + closed,
                "OTEL_BSP_SCHEDULE_DELAY", "100"));
        String ok = "ev-" + run + "-ok";
        String poison = "ev-" + run + "-poison";
        Written written = writeInARequestsTrace(ok, poison);
        awaitRelayed(ok, poison);
        Await.until("the SDK's failed export logged", Duration.ofSeconds(30),
                () -> p.stderr().lines().anyMatch(l -> l.contains("Failed to export")), p::stderr);
        stop(p);

        List<String> json = p.stderr().lines().filter(l -> l.startsWith("{")).toList();
        List<String> startUp = json.subList(0, (int) json.stream().takeWhile(l -> !l.contains("relaying [orders]")).count());
        assertThat(startUp).as("start-up lines (the relay settings' check builds a relay it never starts)").isNotEmpty()
                .noneMatch(l -> l.contains(" stopped"));
        assertThat(json).as("the console exporter's span, a JSON line from its logger")
                .anySatisfy(l -> assertThat(l).contains("\"loggerName\":\"io.opentelemetry.exporter.logging.LoggingSpanExporter\"",
                        "'send " + channel + "'"));
        assertThat(json).as("the OTLP exporter's failure, a JSON line at ERROR or WARN from the SDK")
                .anySatisfy(l -> assertThat(l).contains("\"loggerName\":\"io.opentelemetry.exporter.", "Failed to export")
                        .containsPattern("\"level\":\"(ERROR|WARN)\""));
        assertThat(p.stderr().lines().filter(l -> l.contains("Failed to export") || l.contains("LoggingSpanExporter")))
                .as("none of the SDK's lines escaped as java.util.logging's own two-line text").allMatch(l -> l.startsWith("{"));
        assertThat(p.stderr()).contains("traces exporter console,otlp").contains(written.traceId());
    }
}
