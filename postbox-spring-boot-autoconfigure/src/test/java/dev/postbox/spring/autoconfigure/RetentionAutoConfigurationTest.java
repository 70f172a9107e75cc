package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.EventBus;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPolicy;
import dev.postbox.retention.RetentionPolicy.Rule;
import dev.postbox.retention.RetentionTable;
import dev.postbox.spring.autoconfigure.health.PostboxHealthAutoConfiguration;
import dev.postbox.spring.autoconfigure.metrics.ObservedApp;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.Map;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.MAP;

/**
 * postbox.retention.* in the starter on H2: off by default; the properties become the core's policy and builder; no
 * rule or a bad value fails the start-up by property name; the meters, the health details and the inbox-safety WARN.
 * On PostgreSQL: the table-size gauges, and the outbox's partitions strategy (converted at start-up when empty, the
 * start-up failing by property name otherwise, the runway in the gauge and the health details).
 */
@ExtendWith(OutputCaptureExtension.class)
class RetentionAutoConfigurationTest {

    private TestDatabase db;

    @BeforeEach
    void open() {
        db = TestDatabase.h2();
    }

    @AfterEach
    void close() {
        db.close();
    }

    private ApplicationContextRunner runner() {
        return ObservedApp.runner(db.dataSource());
    }

    private ApplicationContextRunner enabled() {
        return runner().withPropertyValues("postbox.retention.enabled=true", "postbox.retention.interval=1h");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> retentionDetails(ApplicationContext context) {
        Object r = BootLine.health(context, PostboxHealthAutoConfiguration.BEAN_NAME).getDetails().get("retention");
        assertThat(r).isInstanceOf(Map.class);
        return (Map<String, Object>) r;
    }

    @Test
    void offByDefault() {
        runner().run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(Retention.class).doesNotHaveBean(RetentionLifecycle.class);
            assertThat(retentionDetails(context)).containsEntry("enabled", false).hasSize(1);
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            assertThat(registry.find("postbox.retention.deleted").meters()).isEmpty();
            assertThat(registry.find("postbox.table.rows").meters()).as("table sizes are read without retention too")
                    .hasSize(dev.postbox.retention.RetentionTable.values().length);
        });
        enabled().withPropertyValues("postbox.enabled=false", "postbox.retention.outbox.published=7d")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Retention.class));
    }

    @Test
    void propertiesBecomeThePolicyAndTheBuilder() {
        enabled().withPropertyValues("postbox.retention.outbox.published=7d", "postbox.retention.outbox.dead=30d",
                "postbox.retention.outbox.cancelled=1d", "postbox.retention.messages.succeeded=2d",
                "postbox.retention.messages.cancelled=3d", "postbox.retention.messages.dead=4d",
                "postbox.retention.consume-log-window=14d", "postbox.retention.compensations.done=30d",
                "postbox.retention.compensations.failed=60d", "postbox.retention.archive=outbox,consume-log",
                "postbox.retention.batch-size=200", "postbox.retention.max-rows-per-run=5000",
                "postbox.retention.max-run-time=1m", "postbox.retention.lock-timeout=500ms",
                "postbox.retention.statement-timeout=10s", "postbox.retention.instance-id=app-1").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Retention.class);
            Retention retention = context.getBean(Retention.class);
            RetentionPolicy policy = retention.policy();
            assertThat(policy.rules()).containsExactlyInAnyOrder(
                    new Rule(RetentionTable.OUTBOX, "PUBLISHED", Duration.ofDays(7)),
                    new Rule(RetentionTable.OUTBOX, "CANCELLED", Duration.ofDays(1)),
                    new Rule(RetentionTable.OUTBOX, "DEAD", Duration.ofDays(30)),
                    new Rule(RetentionTable.MESSAGES, "SUCCEEDED", Duration.ofDays(2)),
                    new Rule(RetentionTable.MESSAGES, "CANCELLED", Duration.ofDays(3)),
                    new Rule(RetentionTable.MESSAGES, "DEAD", Duration.ofDays(4)),
                    new Rule(RetentionTable.CONSUME_LOG, null, Duration.ofDays(14)),
                    new Rule(RetentionTable.COMPENSATIONS, "DONE", Duration.ofDays(30)),
                    new Rule(RetentionTable.COMPENSATIONS, "FAILED", Duration.ofDays(60)));
            assertThat(policy.strategy(RetentionTable.OUTBOX)).isEqualTo(RetentionPolicy.Strategy.ARCHIVE);
            assertThat(policy.strategy(RetentionTable.CONSUME_LOG)).isEqualTo(RetentionPolicy.Strategy.ARCHIVE);
            assertThat(policy.strategy(RetentionTable.MESSAGES)).isEqualTo(RetentionPolicy.Strategy.DELETE);
            assertThat(policy.strategy(RetentionTable.COMPENSATIONS)).isEqualTo(RetentionPolicy.Strategy.DELETE);
            assertThat(retention.instanceId()).isEqualTo("app-1");
            assertThat(context.getBean(RetentionLifecycle.class).isRunning()).as("started with the context").isTrue();
        });
    }

    @Test
    void onlyTheRulesThatAreSet() {
        enabled().withPropertyValues("postbox.retention.outbox.published=7d").run(context -> {
            RetentionPolicy policy = context.getBean(Retention.class).policy();
            assertThat(policy.rules()).containsExactly(new Rule(RetentionTable.OUTBOX, "PUBLISHED", Duration.ofDays(7)));
            assertThat(policy.strategy(RetentionTable.OUTBOX)).isEqualTo(RetentionPolicy.Strategy.DELETE);
            assertThat(context.getBean(Retention.class).instanceId()).as("the core's default id").isNotBlank();
        });
    }

    @Test
    void enabledWithoutAnyRuleFailsTheStartUp() {
        enabled().run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("postbox.retention: is enabled but has no rule")
                .hasMessageContaining("postbox.retention.enabled=false"));
    }

    @Test
    void badValuesFailTheStartUpNamingThePropertyAndTheLimit() {
        Map<String, String> cases = Map.of(
                "postbox.retention.batch-size=0", "postbox.retention.batch-size: must be between 1 and 10000",
                "postbox.retention.max-rows-per-run=0", "postbox.retention.max-rows-per-run: must be between 1 and 1000000000",
                "postbox.retention.lock-timeout=10ms", "postbox.retention.lock-timeout: must be between PT0.1S and PT1M",
                "postbox.retention.interval=100ms", "postbox.retention.interval: must be between PT1S and PT24H",
                "postbox.retention.instance-id=", "postbox.retention.instance-id",
                "postbox.retention.outbox.dead=-1s", "postbox.retention.outbox.dead: must be zero or a positive duration",
                "postbox.retention.consume-log-window=4000d", "postbox.retention.consume-log-window: must be at most PT87600H",
                "postbox.retention.archive=outbox,bogus", "postbox.retention.archive: unknown table 'bogus'",
                "postbox.retention.duty-cycle=2", "postbox.retention.duty-cycle: must be between 0.05 and 1");
        cases.forEach((setting, message) -> enabled()
                .withPropertyValues("postbox.retention.outbox.published=7d", setting).run(context -> {
                    assertThat(context).as(setting).getFailure().rootCause().hasMessageContaining(message);
                }));
    }

    @Test
    void metersAndHealthAfterARunOnce() {
        enabled().withPropertyValues("postbox.retention.outbox.published=0s", "postbox.retention.instance-id=app-1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
                    Retention retention = context.getBean(Retention.class);
                    context.getBean(EventBus.class).subscribe("t", r -> { });
                    ObservedApp.write(context, "E-1", EventBus.CHANNEL);
                    Postbox postbox = context.getBean(Postbox.class);
                    await("E-1 published", () -> postbox.queries().outbox().byEventNo("E-1")
                            .map(r -> r.status() == OutboxStatus.PUBLISHED).orElse(false), () -> "not yet");
                    await("E-1 removed", () -> {
                        retention.runOnce();
                        return postbox.queries().outbox().byEventNo("E-1").isEmpty();
                    }, retention::status);

                    FunctionCounter removed = registry.find("postbox.retention.deleted").tag("table", "outbox")
                            .functionCounter();
                    assertThat(removed).isNotNull();
                    assertThat(removed.count()).isEqualTo(1.0);
                    assertThat(registry.find("postbox.retention.deleted").tag("table", "messages").functionCounter())
                            .as("only tables with a rule").isNull();
                    TimeGauge lastSuccess = registry.find("postbox.retention.last.success").timeGauge();
                    assertThat(lastSuccess.value()).isBetween(0.0, 60.0);
                    for (String table : new String[] {"outbox", "messages", "consume-log", "compensations"}) {
                        Gauge rows = registry.find("postbox.table.rows").tag("table", table).gauge();
                        Gauge bytes = registry.find("postbox.table.bytes").tag("table", table).gauge();
                        assertThat(rows).as(table).isNotNull();
                        assertThat(bytes).as(table).isNotNull();
                        assertThat(rows.value()).as("H2's row count estimate").isGreaterThanOrEqualTo(0.0);
                        assertThat(bytes.value()).as("H2 keeps no bytes per table").isNaN();
                    }

                    Map<String, Object> r = retentionDetails(context);
                    assertThat(r).containsEntry("enabled", true).containsEntry("instanceId", "app-1")
                            .containsEntry("lastFailure", null).containsEntry("failing", false)
                            .containsKeys("lastSuccess", "lastRemoved", "totalRemoved");
                    assertThat(r.get("lastSuccess")).isNotNull();
                    assertThat(r.get("totalRemoved")).isEqualTo(1L);
                    assertThat(r.get("leaseHolder")).asInstanceOf(MAP).containsEntry("instanceId", "app-1")
                            .containsKey("until");
                    assertThat(BootLine.health(context, PostboxHealthAutoConfiguration.BEAN_NAME).getStatus())
                            .isEqualTo(BootLine.Status.UP);
                });
    }

    @Test
    void theTimeSinceTheLastSuccessIsMeasuredOnPostboxsClock() {
        java.time.Clock threeDaysAgo = java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofDays(-3));
        enabled().withPropertyValues("postbox.retention.outbox.published=7d")
                .withBean(PostboxAutoConfiguration.CLOCK_BEAN, java.time.Clock.class, () -> threeDaysAgo)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Retention retention = context.getBean(Retention.class);
                    assertThat(retention.clock()).isSameAs(threeDaysAgo);
                    retention.runOnce();
                    assertThat(retention.status().lastSuccess()).isBefore(java.time.Instant.now().minus(java.time.Duration.ofDays(2)));
                    TimeGauge lastSuccess = context.getBean(SimpleMeterRegistry.class)
                            .find("postbox.retention.last.success").timeGauge();
                    assertThat(lastSuccess.value()).as("seconds since the run, by the clock that timed it (not 3 days)")
                            .isBetween(0.0, 60.0);
                });
    }

    @Test
    void aFailingRetentionShowsButTheHealthStaysUp() {
        enabled().withPropertyValues("postbox.retention.outbox.published=7d").run(context -> {
            Retention retention = context.getBean(Retention.class);
            retention.close(); // its pool is gone: every run fails from now on
            assertThatThrownBy(retention::runOnce).isInstanceOf(RuntimeException.class);
            BootLine.Health h = BootLine.health(context, PostboxHealthAutoConfiguration.BEAN_NAME);
            assertThat(h.getStatus()).isEqualTo(BootLine.Status.UP);
            Map<String, Object> r = retentionDetails(context);
            // the run at start-up succeeded; the failure since is newer, so it is failing
            assertThat(r).containsEntry("enabled", true).containsEntry("failing", true);
            assertThat(r.get("lastFailure")).isNotNull();
            assertThat(r.get("lastFailureTime")).isNotNull();
            assertThat(String.valueOf(r.get("leaseHolder"))).startsWith("unknown");
            assertThat(h.getDetails()).doesNotContainKey("reason");
        });
    }

    @Test
    void retryHorizonOfTheDefaults() {
        // 2 + 4 + 8 + 16 + 32 s (five retries, each at its longest) plus the 5 s relay lease
        assertThat(RetentionSettings.defaultRetryHorizon(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(67));
        assertThat(RetentionSettings.retryHorizon(10, Duration.ofSeconds(2), Duration.ofMinutes(5), Duration.ZERO))
                .as("capped at 5 min").isEqualTo(Duration.ofSeconds(2 + 4 + 8 + 16 + 32 + 64 + 128 + 256 + 300 + 300));
        assertThat(RetentionSettings.consumeLogWindowWarning(null, Duration.ofSeconds(5))).isEmpty();
        assertThat(RetentionSettings.consumeLogWindowWarning(Duration.ofSeconds(67), Duration.ofSeconds(5))).isEmpty();
        assertThat(RetentionSettings.consumeLogWindowWarning(Duration.ofDays(14), Duration.ofSeconds(5))).isEmpty();
        assertThat(RetentionSettings.consumeLogWindowWarning(Duration.ofSeconds(66), Duration.ofSeconds(5))).hasValueSatisfying(w ->
                assertThat(w).contains("postbox.retention.consume-log-window (PT1M6S)", "(PT1M7S", "twice"));
        assertThat(RetentionSettings.consumeLogWindowWarning(Duration.ofMinutes(2), Duration.ofMinutes(1)))
                .as("a longer relay lease lengthens the horizon").isPresent();
    }

    @Test
    void shortConsumeLogWindowIsWarnedAtStartUp(CapturedOutput output) {
        enabled().withPropertyValues("postbox.retention.consume-log-window=30s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output.getOut()).contains("WARN").contains("postbox.retention.consume-log-window (PT30S) is shorter"
                    + " than the relay's retry horizon (PT1M7S");
        });
        enabled().withPropertyValues("postbox.retention.consume-log-window=14d", "postbox.retention.instance-id=long-window")
                .run(context -> assertThat(output.getOut()).doesNotContain("consume-log-window (PT336H)"));
    }
    @Test
    void tableSizeGaugesOnPostgresComeFromTheCatalogThroughTheRefreshLoop() {
        TestDatabase pg = TestDatabase.postgres(null);
        try {
            ObservedApp.runner(pg.dataSource()).withPropertyValues("postbox.retention.enabled=true",
                    "postbox.retention.interval=1h", "postbox.retention.outbox.published=7d").run(context -> {
                assertThat(context).hasNotFailed();
                SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
                for (String table : new String[] {"outbox", "messages", "consume-log", "compensations"}) {
                    await(table + " bytes read", () -> !Double.isNaN(registry.find("postbox.table.bytes")
                            .tag("table", table).gauge().value()), registry::getMetersAsString);
                    assertThat(registry.find("postbox.table.bytes").tag("table", table).gauge().value()).isPositive();
                    assertThat(registry.find("postbox.table.rows").tag("table", table).gauge().value())
                            .isGreaterThanOrEqualTo(0.0);
                }
            });
        } finally {
            pg.close();
        }
    }

    /** relkind of the outbox: 'p' partitioned, 'r' plain. */
    private static String outboxKind(TestDatabase pg) {
        return query(pg, "SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('biz_outbox_event')");
    }

    private static String query(TestDatabase pg, String sql) {
        try (java.sql.Connection c = pg.dataSource().getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static ApplicationContextRunner partitions(TestDatabase pg) {
        return ObservedApp.runner(pg.dataSource()).withPropertyValues("postbox.retention.enabled=true",
                "postbox.retention.interval=1h", "postbox.retention.outbox.strategy=partitions");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"postgresql", "mariadb"})
    void partitionsOnAnEmptyOutboxConvertItAtStartUpAndShowTheRunway(String kind) {
        TestDatabase pg = kind.equals("mariadb") ? TestDatabase.mariadb(null) : TestDatabase.postgres(null);
        try {
            partitions(pg).withPropertyValues("postbox.retention.outbox.published=0s",
                    "postbox.retention.outbox.partition-interval=6h", "postbox.retention.partitions-ahead=2d",
                    "postbox.retention.instance-id=app-p").run(context -> {
                assertThat(context).hasNotFailed();
                Postbox postbox = context.getBean(Postbox.class);
                Retention retention = context.getBean(Retention.class);
                assertThat(retention.policy().strategy(RetentionTable.OUTBOX)).isEqualTo(RetentionPolicy.Strategy.PARTITIONS);
                assertThat(postbox.outboxPartitions().partitioned()).isTrue();
                assertThat(postbox.outboxPartitions().list()).as("partition-interval").isNotEmpty()
                        .allSatisfy(p -> assertThat(Duration.between(p.from(), p.to())).isEqualTo(Duration.ofHours(6)));
                assertThat(postbox.outboxPartitions().idempotencyWindow()).as("the default idempotency window")
                        .isEqualTo(Duration.ofDays(7));

                // writers and the relay work on the converted outbox
                context.getBean(EventBus.class).subscribe("t", r -> { });
                ObservedApp.write(context, "P-1", EventBus.CHANNEL);
                await("P-1 published", () -> postbox.queries().outbox().byEventNo("P-1")
                        .map(r -> r.status() == OutboxStatus.PUBLISHED).orElse(false), () -> "not yet");
                dev.postbox.retention.RetentionReport report = retention.runOnce();
                assertThat(report.ran()).isTrue();
                assertThat(report.table(RetentionTable.OUTBOX).strategy()).isEqualTo(RetentionPolicy.Strategy.PARTITIONS);
                assertThat(report.table(RetentionTable.OUTBOX).partitions()).as("today's partition is not due").isZero();
                assertThat(retention.status().partitionRunway()).as("partitions-ahead")
                        .isGreaterThan(Duration.ofDays(1)).isLessThanOrEqualTo(Duration.ofDays(2).plusHours(6));

                Map<String, Object> r = retentionDetails(context);
                assertThat(r).containsEntry("enabled", true).containsEntry("outboxStrategy", "partitions")
                        .containsEntry("failing", false).containsEntry("lastPartitionsDropped", 0);
                Duration runway = Duration.parse(String.valueOf(r.get("partitionRunway")));
                assertThat(runway).isPositive().isLessThanOrEqualTo(retention.status().partitionRunway());

                SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
                TimeGauge gauge = registry.find("postbox.retention.partition.runway").timeGauge();
                assertThat(gauge).isNotNull();
                assertThat(gauge.value(java.util.concurrent.TimeUnit.SECONDS)).isGreaterThan(86_400.0)
                        .isLessThanOrEqualTo(retention.status().partitionRunway().toSeconds() + 1.0);
                assertThat(registry.find("postbox.retention.deleted").tag("table", "outbox").functionCounter()).isNotNull();
                assertThat(registry.find("postbox.retention.removed").meters()).as("the old name is gone").isEmpty();
            });
            // a second start-up finds the outbox partitioned and keeps it
            partitions(pg).withPropertyValues("postbox.retention.outbox.published=7d").run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Postbox.class).outboxPartitions().partitioned()).isTrue();
                assertThat(context.getBean(Postbox.class).outboxPartitions().list())
                        .allSatisfy(p -> assertThat(Duration.between(p.from(), p.to())).isEqualTo(Duration.ofHours(6)));
            });
            // a retention longer than the window the outbox was converted with fails naming the property
            partitions(pg).withPropertyValues("postbox.retention.outbox.published=8d").run(context ->
                    assertThat(context).getFailure().rootCause()
                            .hasMessageStartingWith("postbox.retention.outbox.published: must be at most PT168H")
                            .hasMessageContaining("postbox.retention.outbox.idempotency-window"));
        } finally {
            pg.close();
        }
    }

    @Test
    void partitionsOnAnOutboxWithRowsFailTheStartUpAndChangeNothing() {
        TestDatabase pg = TestDatabase.postgres(null);
        try {
            ObservedApp.runner(pg.dataSource()).withPropertyValues("postbox.relay.enabled=false").run(context -> {
                assertThat(context).hasNotFailed();
                ObservedApp.write(context, "R-1", EventBus.CHANNEL);
                ObservedApp.write(context, "R-2", EventBus.CHANNEL);
            });
            assertThat(query(pg, "SELECT count(*) FROM biz_outbox_event")).isEqualTo("2");
            partitions(pg).withPropertyValues("postbox.retention.outbox.published=7d").run(context ->
                    assertThat(context).getFailure().rootCause()
                            .hasMessageStartingWith("postbox.retention.outbox.strategy: ")
                            .hasMessageContaining("must be empty to be converted")
                            .hasMessageContaining("holds 2 rows"));
            assertThat(outboxKind(pg)).as("still the plain outbox").isEqualTo("r");
            assertThat(query(pg, "SELECT count(*) FROM biz_outbox_event")).isEqualTo("2");
            assertThat(query(pg, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
                    + " AND tablename LIKE 'biz_outbox_event%'")).as("no key table or partition left behind")
                    .isEqualTo(query(pg, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
                            + " AND tablename IN ('biz_outbox_event', 'biz_outbox_event_archive')"));
        } finally {
            pg.close();
        }
    }

    @Test
    void partitionsWithoutAPublishedRuleOrWithBadValuesFailNamingTheProperty() {
        TestDatabase pg = TestDatabase.postgres(null);
        try {
            partitions(pg).withPropertyValues("postbox.retention.outbox.dead=30d").run(context ->
                    assertThat(context).getFailure().rootCause()
                            .hasMessageStartingWith("postbox.retention.outbox.published: must be set with"
                                    + " postbox.retention.outbox.strategy=partitions"));
            Map<String, String> cases = Map.of(
                    "postbox.retention.outbox.partition-interval=90m",
                    "postbox.retention.outbox.partition-interval: must be whole hours that divide a day",
                    "postbox.retention.outbox.partition-interval=5h",
                    "postbox.retention.outbox.partition-interval: must be whole hours that divide a day",
                    "postbox.retention.partitions-ahead=400d",
                    "postbox.retention.partitions-ahead: must be between PT1H and PT8784H",
                    "postbox.retention.partitions-ahead=366d",
                    "postbox.retention.partitions-ahead: with partitions of PT1H",
                    "postbox.retention.outbox.idempotency-window=5m",
                    "postbox.retention.outbox.idempotency-window: must be between PT1H and P366D");
            cases.forEach((setting, message) -> partitions(pg).withPropertyValues("postbox.retention.outbox.published=7d",
                    "postbox.retention.outbox.partition-interval=1h", setting).run(context -> {
                assertThat(context).as(setting).getFailure().rootCause().hasMessageContaining(message);
                assertThat(outboxKind(pg)).as(setting + ": nothing converted").isEqualTo("r");
            }));
        } finally {
            pg.close();
        }
    }

    @Test
    void partitionsOnH2FailTheStartUpNamingTheStrategy() {
        enabled().withPropertyValues("postbox.retention.outbox.strategy=partitions", "postbox.retention.outbox.published=7d")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageStartingWith("postbox.retention.outbox.strategy: ")
                        .hasMessageContaining("no time partitions"));
    }

    @Test
    void strategyAndTheArchiveListMustAgree() {
        for (String strategy : new String[] {"partitions", "delete"}) {
            enabled().withPropertyValues("postbox.retention.outbox.published=7d", "postbox.retention.archive=outbox",
                    "postbox.retention.outbox.strategy=" + strategy).run(context -> assertThat(context).as(strategy)
                    .getFailure().rootCause()
                    .hasMessageStartingWith("postbox.retention.outbox.strategy: is " + strategy + " but")
                    .hasMessageContaining("postbox.retention.archive names outbox"));
        }
        enabled().withPropertyValues("postbox.retention.outbox.published=7d", "postbox.retention.archive=outbox,messages",
                "postbox.retention.outbox.strategy=archive").run(context -> {
            assertThat(context).hasNotFailed();
            RetentionPolicy policy = context.getBean(Retention.class).policy();
            assertThat(policy.strategy(RetentionTable.OUTBOX)).isEqualTo(RetentionPolicy.Strategy.ARCHIVE);
            assertThat(policy.strategy(RetentionTable.MESSAGES)).isEqualTo(RetentionPolicy.Strategy.ARCHIVE);
            assertThat(retentionDetails(context)).containsEntry("outboxStrategy", "archive")
                    .doesNotContainKey("partitionRunway");
            assertThat(context.getBean(SimpleMeterRegistry.class).find("postbox.retention.partition.runway").meters())
                    .as("only with partitions").isEmpty();
        });
        enabled().withPropertyValues("postbox.retention.outbox.published=7d", "postbox.retention.outbox.strategy=archive")
                .run(context -> assertThat(context.getBean(Retention.class).policy().strategy(RetentionTable.OUTBOX))
                        .isEqualTo(RetentionPolicy.Strategy.ARCHIVE));
        enabled().withPropertyValues("postbox.retention.outbox.published=7d").run(context ->
                assertThat(retentionDetails(context)).containsEntry("outboxStrategy", "delete"));
    }
}
