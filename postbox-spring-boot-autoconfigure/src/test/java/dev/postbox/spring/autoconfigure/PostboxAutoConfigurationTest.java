package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.inbox.InboxResult;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.EventBus;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.spring.EventTypeHandler;
import dev.postbox.spring.PostboxMessageHandler;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.TransactionalCompensations;
import dev.postbox.spring.TransactionalInbox;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The starter on a real database with Boot's own DataSource and transaction auto-configuration: writes join
 * the Spring transaction (commit, rollback, none, read-only), the relay publishes to the event bus, handler
 * beans are found, compensation jobs are run, routing and bad settings fail the start-up by name.
 */
class PostboxAutoConfigurationTest {

    private final List<TestDatabase> databases = new CopyOnWriteArrayList<>();

    @AfterEach
    void dropDatabases() {
        databases.forEach(TestDatabase::close);
    }

    private ApplicationContextRunner runner(TestDatabase db) {
        databases.add(db);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE,
                        BootLine.DATA_SOURCE_TRANSACTION_MANAGER, BootLine.TRANSACTION, BootLine.JDBC_TEMPLATE,
                        PostboxAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user(),
                        "spring.datasource.hikari.maximum-pool-size=4", "postbox.schema.mode=always",
                        "postbox.relay.poll-interval-max=50ms", "postbox.worker.poll-interval-max=50ms",
                        "spring.application.name=spring-test");
    }

    private static OutboxEvent event(String no, String channel) {
        return OutboxEvent.builder().eventNo(no).aggregate("ORDER", no).eventType("ORDER_CREATED")
                .channel(channel).topic("order.event").payload("{\"no\":\"" + no + "\"}").build();
    }

    private static void await(String what, BooleanSupplier condition) {
        dev.postbox.testing.Await.until(what, Duration.ofSeconds(20), condition);
    }

    private static void createOrders(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE t_order (order_no VARCHAR(64) PRIMARY KEY, status VARCHAR(16) NOT NULL)");
    }

    private static void transactionsJoin(TestDatabase db) {
        new PostboxAutoConfigurationTest().runner(db).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            createOrders(jdbc);
            TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            TransactionalOutbox outbox = ctx.getBean(TransactionalOutbox.class);
            List<String> seen = new CopyOnWriteArrayList<>();
            ctx.getBean(EventBus.class).subscribe("order.event", r -> seen.add(r.eventNo()));

            tx.executeWithoutResult(s -> {
                jdbc.update("INSERT INTO t_order VALUES ('O-1', 'CREATED')");
                assertThat(outbox.write(event("ORDER_CREATED:O-1", EventBus.CHANNEL)).inserted()).isTrue();
            });
            assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
                jdbc.update("INSERT INTO t_order VALUES ('O-2', 'CREATED')");
                outbox.write(event("ORDER_CREATED:O-2", EventBus.CHANNEL));
                throw new IllegalStateException("business rule failed after the write");
            })).hasMessageContaining("business rule");
            assertThatThrownBy(() -> outbox.write(event("ORDER_CREATED:O-3", EventBus.CHANNEL)))
                    .isInstanceOf(TransactionRequiredException.class)
                    .hasMessageContaining("no Spring transaction is active");
            TransactionTemplate readOnly = new TransactionTemplate(tx.getTransactionManager());
            readOnly.setReadOnly(true);
            assertThatThrownBy(() -> readOnly.executeWithoutResult(s -> outbox.write(event("ORDER_CREATED:O-4", EventBus.CHANNEL))))
                    .isInstanceOf(TransactionRequiredException.class).hasMessageContaining("read-only");

            Postbox postbox = ctx.getBean(Postbox.class);
            await("O-1 published", () -> postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1")
                    .map(r -> r.status() == OutboxStatus.PUBLISHED).orElse(false));
            assertThat(seen).containsExactly("ORDER_CREATED:O-1");
            assertThat(jdbc.queryForList("SELECT order_no FROM t_order", String.class)).containsExactly("O-1");
            for (String no : List.of("ORDER_CREATED:O-2", "ORDER_CREATED:O-3", "ORDER_CREATED:O-4")) {
                assertThat(postbox.queries().outbox().byEventNo(no)).as(no + " was never written").isEmpty();
            }
            assertThat(postbox.queries().outbox().byEventNo("ORDER_CREATED:O-1").orElseThrow().source())
                    .as("source defaults to spring.application.name").isEqualTo("spring-test");

            TransactionalInbox inbox = ctx.getBean(TransactionalInbox.class);
            AtomicInteger runs = new AtomicInteger();
            InboxResult<Integer> first = tx.execute(s -> inbox.once("inventory", "ORDER_CREATED:O-1", runs::incrementAndGet));
            InboxResult<Integer> second = tx.execute(s -> inbox.once("inventory", "ORDER_CREATED:O-1", runs::incrementAndGet));
            assertThat(first.ran()).isTrue();
            assertThat(second.duplicate()).isTrue();
            assertThat(runs).hasValue(1);
            assertThatThrownBy(() -> inbox.once("inventory", "E-9", runs::incrementAndGet))
                    .isInstanceOf(TransactionRequiredException.class);

            TransactionalCompensations compensations = ctx.getBean(TransactionalCompensations.class);
            AtomicInteger released = new AtomicInteger();
            for (int i = 0; i < 2; i++) {
                tx.executeWithoutResult(s -> compensations.once("ORDER", "O-1", "RELEASE_STOCK", c -> {
                    jdbc.update("UPDATE t_order SET status = 'RELEASED' WHERE order_no = 'O-1'");
                    return released.incrementAndGet();
                }));
            }
            assertThat(released).as("the second call finds it DONE").hasValue(1);
            assertThat(jdbc.queryForObject("SELECT status FROM t_order WHERE order_no = 'O-1'", String.class))
                    .as("JdbcTemplate inside the action ran in the same transaction").isEqualTo("RELEASED");
            assertThat(postbox.compensations().find("ORDER", "O-1", "RELEASE_STOCK").orElseThrow().status())
                    .isEqualTo(dev.postbox.compensation.CompensationStatus.DONE);
            tx.executeWithoutResult(s -> {
                var failed = compensations.once("ORDER", "O-9", "RELEASE_STOCK", c -> {
                    jdbc.update("UPDATE t_order SET status = 'GONE'");
                    throw new IllegalStateException("stock service says no");
                });
                assertThat(failed.outcome()).isEqualTo(dev.postbox.compensation.CompensationResult.Outcome.FAILED);
            });
            assertThat(jdbc.queryForObject("SELECT status FROM t_order WHERE order_no = 'O-1'", String.class))
                    .as("the failed action was rolled back to its savepoint").isEqualTo("RELEASED");
            assertThat(postbox.compensations().find("ORDER", "O-9", "RELEASE_STOCK").orElseThrow().lastError())
                    .contains("stock service says no");

            dev.postbox.spring.TransactionalMessageEvents messages = ctx.getBean(dev.postbox.spring.TransactionalMessageEvents.class);
            tx.executeWithoutResult(s -> {
                jdbc.update("UPDATE t_order SET status = 'PAID' WHERE order_no = 'O-1'");
                assertThat(messages.create(paid("PAYMENT_SUCCESS:O-1")).inserted()).isTrue();
                assertThat(messages.create(paid("PAYMENT_SUCCESS:O-1")).duplicate()).isTrue();
            });
            assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
                messages.create(paid("PAYMENT_SUCCESS:O-2"));
                throw new IllegalStateException("payment rolled back after the create");
            })).hasMessageContaining("payment rolled back");
            assertThatThrownBy(() -> messages.create(paid("PAYMENT_SUCCESS:O-3")))
                    .isInstanceOf(TransactionRequiredException.class).hasMessageContaining("no Spring transaction is active");
            assertThat(postbox.queries().messages().byEventNo("PAYMENT_SUCCESS:O-1")).isPresent();
            assertThat(postbox.queries().messages().byEventNo("PAYMENT_SUCCESS:O-2")).as("rolled back with its transaction").isEmpty();
            assertThat(postbox.queries().messages().byEventNo("PAYMENT_SUCCESS:O-3")).as("never written").isEmpty();
        });
    }

    private static dev.postbox.message.MessageEvent paid(String eventNo) {
        return dev.postbox.message.MessageEvent.builder().eventNo(eventNo).eventType("PAYMENT_SUCCESS")
                .biz("ORDER", eventNo.substring(eventNo.indexOf(':') + 1)).payload("{}").build();
    }

    @Test
    void writesJoinTheSpringTransactionOnH2() {
        transactionsJoin(TestDatabase.h2());
    }

    @Test
    void writesJoinTheSpringTransactionOnPostgres() {
        transactionsJoin(TestDatabase.postgres(null));
    }

    @Test
    void writesJoinTheSpringTransactionOnMariaDb() {
        transactionsJoin(TestDatabase.mariadb(null));
    }

    @Configuration(proxyBeanMethods = false)
    static class Handlers {
        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

        @PostboxMessageHandler("ORDER_PAID")
        void onPaid(MessageRecord event) {
            calls.computeIfAbsent("paid:" + event.bizId(), k -> new AtomicInteger()).incrementAndGet();
        }

        @Bean
        EventTypeHandler shippedHandler() {
            return new EventTypeHandler() {
                @Override
                public String eventType() {
                    return "ORDER_SHIPPED";
                }

                @Override
                public void handle(MessageRecord event) {
                    calls.computeIfAbsent("shipped:" + event.bizId(), k -> new AtomicInteger()).incrementAndGet();
                }
            };
        }
    }

    @Test
    void annotatedMethodsAndHandlerBeansRunOnTheWorker() {
        runner(TestDatabase.h2()).withUserConfiguration(Handlers.class).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            Postbox postbox = ctx.getBean(Postbox.class);
            Handlers handlers = ctx.getBean(Handlers.class);
            try (var c = ctx.getBean(javax.sql.DataSource.class).getConnection()) {
                c.setAutoCommit(false);
                postbox.messages().create(c, MessageEvent.builder().eventNo("PAID:1").eventType("ORDER_PAID")
                        .biz("ORDER", "1").payload("{}").build());
                postbox.messages().create(c, MessageEvent.builder().eventNo("SHIPPED:1").eventType("ORDER_SHIPPED")
                        .biz("ORDER", "1").payload("{}").build());
                c.commit();
            }
            await("both handled", () -> handlers.calls.size() == 2
                    && postbox.queries().messages().byEventNo("PAID:1").map(r -> r.status() == MessageStatus.SUCCEEDED).orElse(false)
                    && postbox.queries().messages().byEventNo("SHIPPED:1").map(r -> r.status() == MessageStatus.SUCCEEDED).orElse(false));
            assertThat(handlers.calls).containsOnlyKeys("paid:1", "shipped:1");
            assertThat(ctx.getBean(WorkerLifecycle.class).worker()).isNotNull();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlersForOneType {
        @Bean
        Object first() {
            return new Object() {
                @PostboxMessageHandler("ORDER_PAID")
                void a(MessageRecord e) {
                }
            };
        }

        @Bean
        EventTypeHandler second() {
            return new EventTypeHandler() {
                @Override
                public String eventType() {
                    return "ORDER_PAID";
                }

                @Override
                public void handle(MessageRecord event) {
                }
            };
        }
    }

    @Test
    void twoHandlersForOneEventTypeFailTheStartUpNamingBoth() {
        runner(TestDatabase.h2()).withUserConfiguration(TwoHandlersForOneType.class).run(ctx ->
                assertThat(ctx).getFailure().rootCause()
                        .hasMessageContaining("Two Postbox message handlers for event type 'ORDER_PAID'")
                        .hasMessageContaining("bean 'second'"));
    }

    @Test
    void theClockSkewCheckIsAPropertyAndAClockFarFromTheDatabasesIsTrustedOnlyWithoutIt() {
        java.time.Clock anHourAhead = java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(1));
        runner(TestDatabase.h2()).withPropertyValues("postbox.schema.mode=always")
                .withBean(PostboxAutoConfiguration.CLOCK_BEAN, java.time.Clock.class, () -> anHourAhead).run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    RelayLifecycle relay = ctx.getBean(RelayLifecycle.class);
                    relay.relay().runOnce();
                    assertThat(relay.relayClockTrusted()).as("checked: an hour off the database's clock").isFalse();
                });
        runner(TestDatabase.h2()).withPropertyValues("postbox.schema.mode=always", "postbox.relay.clock-skew-check=false")
                .withBean(PostboxAutoConfiguration.CLOCK_BEAN, java.time.Clock.class, () -> anHourAhead).run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    RelayLifecycle relay = ctx.getBean(RelayLifecycle.class);
                    relay.relay().runOnce();
                    assertThat(relay.relayClockTrusted()).as("not checked").isTrue();
                });
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.lease-duration=6s", "postbox.relay.max-clock-skew=5s")
                .run(ctx -> assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageStartingWith("postbox.relay.max-clock-skew: must be less than two thirds"));
    }

    @Test
    void aBadRelaySettingFailsTheStartUpNamingIt() {
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.batch-size=0").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageContaining("postbox.relay.batch-size").hasMessageContaining("5000"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.lease-duration=100ms", "postbox.relay.send-timeout=10s").run(ctx ->
                assertThat(ctx).getFailure().rootCause().hasMessageContaining("postbox.relay.lease-duration"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.table-prefix=Bad-Prefix").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageContaining("postbox.table-prefix"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.in-flight-batches=9").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageContaining("postbox.relay.in-flight-batches").hasMessageContaining("8"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.notify-interval=2s").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageContaining("postbox.notify-interval").hasMessageContaining("1 s"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.retry-policy-base=0s").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageStartingWith("postbox.relay.retry-policy-base: must be positive"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.retry-policy-base=10s", "postbox.relay.retry-policy-cap=1s")
                .run(ctx -> assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageStartingWith("postbox.relay.retry-policy-cap: must be at least the base"));
        runner(TestDatabase.h2()).withPropertyValues("postbox.worker.threads=0").withUserConfiguration(Handlers.class).run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(ValidationException.class)
                        .hasMessageContaining("postbox.worker.threads"));
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondRouteForEventBusChannel {
        @Bean
        PublisherRoute clash() {
            return new PublisherRoute("my-sink", List.of(EventBus.CHANNEL), records ->
                    records.stream().map(r -> (java.util.concurrent.CompletionStage<PublishResult>)
                            CompletableFuture.completedFuture(PublishResult.published())).toList());
        }
    }

    @Test
    void aChannelRoutedTwiceFailsTheStartUpNamingBothRoutes() {
        runner(TestDatabase.h2()).withUserConfiguration(SecondRouteForEventBusChannel.class).run(ctx ->
                assertThat(ctx).getFailure().rootCause().hasMessageContaining("channel 'EVENT_BUS'")
                        .hasMessageContaining("event-bus").hasMessageContaining("my-sink"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPublisher {
        final List<String> sent = new CopyOnWriteArrayList<>();

        @Bean(PostboxAutoConfiguration.PUBLISHER_BEAN)
        Publisher postboxPublisher() {
            return records -> records.stream().map(r -> {
                sent.add(r.channel() + ":" + r.eventNo());
                return (java.util.concurrent.CompletionStage<PublishResult>) CompletableFuture.completedFuture(PublishResult.published());
            }).toList();
        }
    }

    @Test
    void aPublisherBeanNamedPostboxPublisherReplacesTheRouting() {
        runner(TestDatabase.h2()).withUserConfiguration(OwnPublisher.class).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            tx.executeWithoutResult(s -> ctx.getBean(TransactionalOutbox.class).write(event("E-1", "ANYTHING")));
            OwnPublisher own = ctx.getBean(OwnPublisher.class);
            await("sent", () -> !own.sent.isEmpty());
            assertThat(own.sent).containsExactly("ANYTHING:E-1");
        });
    }

    @Test
    void theCommitWakesTheRelayInsteadOfItsNextPoll() {
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.poll-interval-min=30s", "postbox.relay.poll-interval-max=30s")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    Postbox postbox = ctx.getBean(Postbox.class);
                    ctx.getBean(EventBus.class).subscribe("order.event", r -> { }); // an unsubscribed topic fails
                    TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));
                    Thread.sleep(500); // the relay's first (empty) poll is over; it now waits 30 s unless woken
                    long start = System.nanoTime();
                    tx.executeWithoutResult(s -> ctx.getBean(TransactionalOutbox.class).write(event("E-1", EventBus.CHANNEL)));
                    long deadline = start + Duration.ofSeconds(5).toNanos();
                    while (postbox.queries().outbox().byEventNo("E-1").orElseThrow().status() != OutboxStatus.PUBLISHED) {
                        assertThat(System.nanoTime()).as("published long before the 30 s poll").isLessThan(deadline);
                        Thread.sleep(10);
                    }
                });
    }

    @Test
    void anEventOnAnUnroutedChannelGoesDeadWithTheReason() {
        runner(TestDatabase.h2()).run(ctx -> {
            TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            tx.executeWithoutResult(s -> ctx.getBean(TransactionalOutbox.class).write(event("E-1", "KAFKA")));
            Postbox postbox = ctx.getBean(Postbox.class);
            await("dead", () -> postbox.queries().outbox().byEventNo("E-1").map(r -> r.status() == OutboxStatus.DEAD).orElse(false));
            OutboxRecord r = postbox.queries().outbox().byEventNo("E-1").orElseThrow();
            assertThat(r.failReason()).contains("no publisher for channel 'KAFKA'");
        });
    }

    @Test
    void relayDisabledLeavesEventsPendingAndSchemaModeNeverInstallsNothingButChecks() {
        runner(TestDatabase.h2()).withPropertyValues("postbox.relay.enabled=false").run(ctx -> {
            assertThat(ctx).hasNotFailed().doesNotHaveBean(RelayLifecycle.class);
            TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            tx.executeWithoutResult(s -> ctx.getBean(TransactionalOutbox.class).write(event("E-1", EventBus.CHANNEL)));
            Thread.sleep(300);
            assertThat(ctx.getBean(Postbox.class).queries().outbox().byEventNo("E-1").orElseThrow().status())
                    .isEqualTo(OutboxStatus.PENDING);
        });
        runner(TestDatabase.h2()).withPropertyValues("postbox.schema.mode=never", "postbox.relay.enabled=false").run(ctx ->
                assertThat(ctx).getFailure().rootCause().isInstanceOf(PostboxSchemaException.class)
                        .hasMessageContaining("postbox.schema.mode=never"));
        TestDatabase installedBefore = TestDatabase.h2();
        Postbox.builder(installedBefore.dataSource()).build().schema().install();
        runner(installedBefore).withPropertyValues("postbox.schema.mode=never", "postbox.relay.enabled=false").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(Postbox.class).schema().inspect().current()).isTrue();
        });
        runner(TestDatabase.h2()).withPropertyValues("postbox.enabled=false").run(ctx ->
                assertThat(ctx).hasNotFailed().doesNotHaveBean(Postbox.class).doesNotHaveBean(TransactionalOutbox.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class TimeoutJob {
        final AtomicInteger cancelled = new AtomicInteger();

        @Bean
        CompensationJob timeoutCancel(Postbox postbox) {
            return postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
                    .scan((c, limit) -> {
                        List<String> keys = new java.util.ArrayList<>();
                        try (var ps = c.prepareStatement("SELECT order_no FROM t_order WHERE status = 'CREATED'");
                             var rs = ps.executeQuery()) {
                            while (rs.next()) {
                                keys.add(rs.getString(1));
                            }
                        }
                        return keys;
                    })
                    .action((c, orderNo) -> {
                        try (var ps = c.prepareStatement("UPDATE t_order SET status = 'CANCELLED' WHERE order_no = ? AND status = 'CREATED'")) {
                            ps.setString(1, orderNo);
                            if (ps.executeUpdate() == 1) {
                                cancelled.incrementAndGet();
                                postbox.outbox().write(c, event("ORDER_CANCELLED:" + orderNo, EventBus.CHANNEL));
                            }
                        }
                    })
                    .interval(Duration.ofMillis(100))
                    .build();
        }
    }

    @Test
    void compensationJobBeansRunOnTheirScheduleAndStopWithTheContext() {
        TestDatabase db = TestDatabase.h2();
        runner(db).withUserConfiguration(TimeoutJob.class).run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(CompensationJobsLifecycle.class);
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            ctx.getBean(EventBus.class).subscribe("order.event", r -> { }); // an unsubscribed topic fails
            createOrders(jdbc);
            jdbc.update("INSERT INTO t_order VALUES ('O-1', 'CREATED')");
            Postbox postbox = ctx.getBean(Postbox.class);
            await("cancelled and published", () -> postbox.queries().outbox().byEventNo("ORDER_CANCELLED:O-1")
                    .map(r -> r.status() == OutboxStatus.PUBLISHED).orElse(false));
            assertThat(jdbc.queryForObject("SELECT status FROM t_order", String.class)).isEqualTo("CANCELLED");
            Thread.sleep(300);
            assertThat(ctx.getBean(TimeoutJob.class).cancelled).hasValue(1);
        });
        runner(TestDatabase.h2()).withUserConfiguration(TimeoutJob.class).withPropertyValues("postbox.compensation.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(CompensationJobsLifecycle.class));
    }
}
