package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.Postbox;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.spring.autoconfigure.health.PostboxHealthAutoConfiguration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** An application context as Boot builds it for the metrics and health tests: a real data source, Boot's metrics. */
public final class ObservedApp {

    public static final Duration WAIT = Duration.ofSeconds(30);

    private ObservedApp() {
    }

    /** Postbox with its metrics and health auto-configuration on {@code dataSource}, a SimpleMeterRegistry, fast polls. */
    public static ApplicationContextRunner runner(DataSource dataSource) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.METRICS, PostboxAutoConfiguration.class,
                        PostboxMetricsAutoConfiguration.class, PostboxHealthAutoConfiguration.class))
                .withBean(DataSource.class, () -> dataSource)
                .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(dataSource))
                .withPropertyValues("spring.application.name=observed-app", "postbox.schema.mode=always", "postbox.metrics.refresh-interval=200ms",
                        "postbox.relay.poll-interval-max=200ms", "postbox.worker.poll-interval-max=200ms");
    }

    /** An event for {@code channel}, topic {@code t}, written and committed through TransactionalOutbox. */
    public static void write(ApplicationContext context, String eventNo, String channel) {
        TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
        inTransaction(context, () -> outbox.write(OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo)
                .eventType("ORDER_CREATED").channel(channel).topic("t").payload("{\"no\":\"" + eventNo + "\"}").build()));
    }

    /** A message event of {@code eventType}, created and committed; no retry after a failure. */
    public static void message(ApplicationContext context, String eventNo, String eventType) {
        Postbox postbox = context.getBean(Postbox.class);
        DataSource ds = context.getBean(DataSource.class);
        inTransaction(context, () -> postbox.messages().create(DataSourceUtils.getConnection(ds), MessageEvent.builder()
                .eventNo(eventNo).eventType(eventType).biz("ORDER", eventNo).payload("{}").maxRetries(0).build()));
    }

    private static void inTransaction(ApplicationContext context, Runnable work) {
        new TransactionTemplate(context.getBean(DataSourceTransactionManager.class)).executeWithoutResult(s -> work.run());
    }

    /** Polls {@code condition} until it holds or {@link #WAIT} passes; then fails with {@code state}. */
    public static void await(String what, BooleanSupplier condition, Supplier<Object> state) {
        dev.postbox.testing.Await.until(what, WAIT, condition, state);
    }
}
