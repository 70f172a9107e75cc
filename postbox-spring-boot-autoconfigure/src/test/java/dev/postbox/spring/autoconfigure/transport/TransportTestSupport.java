package dev.postbox.spring.autoconfigure.transport;

import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PublisherRoute;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** A context with the core auto-configuration plus one transport's, on a real data source; helpers to write and wait. */
final class TransportTestSupport {

    static final Duration WAIT = Duration.ofSeconds(60);

    private TransportTestSupport() {
    }

    /** Postbox + {@code transports} on {@code dataSource}, the relay on (fast idle polling), no worker. */
    static ApplicationContextRunner runner(DataSource dataSource, Class<?>... transports) {
        Class<?>[] all = new Class<?>[transports.length + 1];
        all[0] = PostboxAutoConfiguration.class;
        System.arraycopy(transports, 0, all, 1, transports.length);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(all))
                .withBean(DataSource.class, () -> dataSource)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(dataSource))
                .withPropertyValues("spring.application.name=transport-test", "postbox.schema.mode=always", "postbox.relay.enabled=true",
                        "postbox.relay.poll-interval-max=200ms", "postbox.worker.enabled=false");
    }

    /** A unique name for a broker-side object (exchange, queue, stream, topic). */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static OutboxEvent event(String channel, String topic, String routingKey, String eventNo, String aggregateId, int seq) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId).eventType("ORDER_CREATED")
                .channel(channel).topic(topic).routingKey(routingKey)
                .payload("{\"order\":\"" + aggregateId + "\",\"seq\":" + seq + ",\"note\":\"grüße\"}").build();
    }

    /** Writes {@code events} in one Spring transaction through the context's {@link TransactionalOutbox}. */
    static void writeInTransaction(ApplicationContext context, List<OutboxEvent> events) {
        TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(status -> events.forEach(outbox::write));
    }

    /** An inbox-guarded consumer (the application's way) that collects what it receives. */
    static EnvelopeConsumer collecting(ApplicationContext context, String name, Queue<Envelope> into) {
        return new EnvelopeConsumer(context.getBean(DataSource.class), context.getBean(Postbox.class).inbox(), name,
                (c, e) -> into.add(e));
    }

    static Queue<Envelope> queue() {
        return new ConcurrentLinkedQueue<>();
    }

    /** Waits until every one of {@code eventNos} is PUBLISHED (2). */
    static void awaitPublished(DataSource ds, Collection<String> eventNos) {
        await("events " + eventNos + " PUBLISHED, statuses: ", () -> statuses(ds, eventNos).values().stream()
                .filter(s -> s == 2).count() == eventNos.size(), () -> statuses(ds, eventNos).toString());
    }

    static Map<String, Integer> statuses(DataSource ds, Collection<String> eventNos) {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT event_no, publish_status, fail_reason FROM biz_outbox_event")) {
            Map<String, Integer> out = new java.util.TreeMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (eventNos.contains(rs.getString(1))) {
                        out.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void await(String what, BooleanSupplier condition, java.util.function.Supplier<String> state) {
        dev.postbox.testing.Await.until(what, WAIT, condition, state);
    }

    /** Names of the routes in the context, with their channels. */
    static Map<String, List<String>> routes(ApplicationContext context) {
        return context.getBeansOfType(PublisherRoute.class).values().stream()
                .collect(Collectors.toMap(PublisherRoute::name, PublisherRoute::channels));
    }
}
