package dev.postbox.spring.autoconfigure.tracing;

import dev.postbox.Postbox;
import dev.postbox.micrometer.ObservationTracing;
import dev.postbox.micrometer.PostboxSendTracingHandler;
import dev.postbox.opentelemetry.OpenTelemetryTracing;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import dev.postbox.tracing.PostboxTracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import javax.sql.DataSource;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which tracer the starter traces Postbox with, and that it does: a real database (H2), the starter's relay, Boot's
 * own observation and tracing auto-configurations where the application has Micrometer Tracing, spans to the
 * OpenTelemetry SDK's in-memory exporter. The write's create span is the request's child and its trace id is the row's;
 * the relay's send span links to it.
 */
class PostboxTracingAutoConfigurationTest {

    private TestDatabase db;
    private InMemorySpanExporter spans;
    private OpenTelemetrySdk sdk;

    @BeforeEach
    void open() {
        db = TestDatabase.h2();
        spans = InMemorySpanExporter.create();
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    }

    @AfterEach
    void close() {
        sdk.close();
        db.close();
    }

    private ApplicationContextRunner runner() {
        DataSource ds = db.dataSource();
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PostboxTracingAutoConfiguration.class, PostboxAutoConfiguration.class))
                .withBean(DataSource.class, () -> ds)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(ds))
                .withPropertyValues("spring.application.name=traced-app", "postbox.schema.mode=always",
                        "postbox.relay.poll-interval-max=200ms",
                        "postbox.worker.enabled=false");
    }

    @Test
    void anOpenTelemetryBeanWithoutMicrometerTracingTracesThroughTheOpenTelemetryApi() {
        runner().withBean(OpenTelemetry.class, () -> sdk).run(context -> {
            assertThat(context.getBean(PostboxTracing.class)).isInstanceOf(OpenTelemetryTracing.class);
            assertThat(context).doesNotHaveBean(PostboxSendTracingHandler.class);
            context.getBean(EventBus.class).subscribe("t", r -> { });
            Span request = sdk.getTracer("test").spanBuilder("request").startSpan();
            try (Scope ignored = request.makeCurrent()) {
                write(context, "E-1", EventBus.CHANNEL);
                writeMessage(context, "M-1");
            } finally {
                request.end();
            }
            assertTraced(context, "E-1", span("request"));
            assertWorkerIsTheWritesChild(context, "M-1", span("request"));
        });
    }

    @Test
    void micrometerTracingIsUsedThroughObservationsWhoseSendSpansLinkToTheirEvents() {
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("test");
        runner().withConfiguration(AutoConfigurations.of(BootLine.METRICS, BootLine.OBSERVATION, BootLine.MICROMETER_TRACING))
                .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(OpenTelemetry.class, () -> sdk)
                .withBean(Tracer.class, () -> new OtelTracer(otel, current, event -> { }))
                .withBean(Propagator.class, () -> new OtelPropagator(sdk.getPropagators(), otel))
                .run(context -> {
                    assertThat(context.getBean(PostboxTracing.class)).as("Micrometer Tracing first, through observations")
                            .isInstanceOf(ObservationTracing.class);
                    assertThat(context).hasSingleBean(PostboxSendTracingHandler.class);
                    context.getBean(EventBus.class).subscribe("t", r -> { });
                    ObservationRegistry registry = context.getBean(ObservationRegistry.class);
                    Observation request = Observation.start("request", registry);
                    try (Observation.Scope ignored = request.openScope()) {
                        write(context, "E-2", EventBus.CHANNEL);
                        writeMessage(context, "M-2");
                    } finally {
                        request.stop();
                    }
                    assertTraced(context, "E-2", span("request"));
                    assertWorkerIsTheWritesChild(context, "M-2", span("request"));
                    SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
                    await("Boot's meter handler timed the write and the send",
                            () -> meters.find("postbox.create").timer() != null && meters.find("postbox.send").timer() != null,
                            meters::getMetersAsString);
                });
    }

    @Test
    void tracingCanBeTurnedOff() {
        runner().withBean(OpenTelemetry.class, () -> sdk).withPropertyValues("postbox.tracing.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(PostboxTracing.class);
                    assertThat(context.getBean(Postbox.class).tracing()).isSameAs(PostboxTracing.NOOP);
                    write(context, "E-3", EventBus.CHANNEL);
                    assertThat(spans.getFinishedSpanItems()).isEmpty();
                    assertThat(new JdbcTemplate(db.dataSource()).queryForObject(
                            "SELECT COUNT(*) FROM biz_outbox_event WHERE event_no = 'E-3' AND trace_id IS NULL", Integer.class))
                            .isEqualTo(1);
                });
    }

    /** The create span of {@code eventNo} is {@code request}'s child, the row has its trace id, a send span links to it. */
    private void assertTraced(ApplicationContext context, String eventNo, SpanData request) {
        SpanData create = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("create ") && eventNo.equals(s.getAttributes()
                        .get(io.opentelemetry.api.common.AttributeKey.stringKey("messaging.message.id"))))
                .findFirst().orElseThrow(() -> new AssertionError("no create span among " + names()));
        assertThat(create.getParentSpanId()).as("the write's span is the request's child").isEqualTo(request.getSpanId());
        assertThat(create.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                "SELECT trace_id FROM biz_outbox_event WHERE event_no = ?", String.class, eventNo))
                .as("the row's trace_id is the request's").isEqualTo(request.getTraceId());
        await("a send span linked to " + eventNo + "'s creation context", () -> spans.getFinishedSpanItems().stream()
                .anyMatch(s -> s.getName().startsWith("send") && s.getLinks().stream().map(LinkData::getSpanContext)
                        .anyMatch(l -> l.getSpanId().equals(create.getSpanId()))), this::names);
    }

    /** A message event written in its own transaction, on the current thread (under the current request). */
    private static void writeMessage(ApplicationContext context, String eventNo) throws java.sql.SQLException {
        try (java.sql.Connection c = context.getBean(DataSource.class).getConnection()) {
            c.setAutoCommit(false);
            context.getBean(Postbox.class).messages().create(c, dev.postbox.message.MessageEvent.builder().eventNo(eventNo)
                    .eventType("ORDER_PAID").biz("ORDER", eventNo).source("traced-app").payload("{}").build());
            c.commit();
        }
    }

    /**
     * The message event's create span is {@code request}'s child, and a worker's process span for it is the create
     * span's child (through the trace context stored with the row).
     */
    private void assertWorkerIsTheWritesChild(ApplicationContext context, String eventNo, SpanData request) throws Exception {
        SpanData create = byMessageId("create ", eventNo);
        assertThat(create.getParentSpanId()).as("the message write is the request's child").isEqualTo(request.getSpanId());
        java.util.concurrent.CountDownLatch handled = new java.util.concurrent.CountDownLatch(1);
        try (dev.postbox.message.MessageWorker worker = context.getBean(Postbox.class).worker().instanceId("w-traced")
                .handler("ORDER_PAID", e -> handled.countDown())
                .pollInterval(java.time.Duration.ofMillis(20), java.time.Duration.ofMillis(100)).start()) {
            assertThat(handled.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the worker ran the handler").isTrue();
            await("the worker's process span ended", () -> spans.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().startsWith("process ")), this::names);
        }
        SpanData process = byMessageId("process ", eventNo);
        assertThat(process.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(process.getParentSpanId()).as("the worker's span is the write's child").isEqualTo(create.getSpanId());
    }

    private SpanData byMessageId(String prefix, String eventNo) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith(prefix) && eventNo.equals(s.getAttributes()
                        .get(io.opentelemetry.api.common.AttributeKey.stringKey("messaging.message.id"))))
                .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + "span of " + eventNo + " among " + names()));
    }

    private SpanData span(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " among " + names()));
    }

    private Object names() {
        return spans.getFinishedSpanItems().stream().map(s -> s.getName() + " links=" + s.getLinks().size()).toList();
    }
}
