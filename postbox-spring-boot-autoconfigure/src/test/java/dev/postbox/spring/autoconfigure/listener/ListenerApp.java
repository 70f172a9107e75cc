package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxUpcaster;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.spring.autoconfigure.PostboxAutoConfiguration;
import dev.postbox.testing.Await;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A small application with @PostboxListener methods on a real data source, and helpers to write events and wait. */
final class ListenerApp {

    static final Duration WAIT = Duration.ofSeconds(60);

    private ListenerApp() {
    }

    /** The payload of ORDER_CREATED, version 2 (version 1 had no currency). */
    record OrderCreated(String sku, int qty, String currency) {
    }

    /**
     * The inventory: reserves stock with JdbcTemplate (so its rows take part in the delivery's transaction) and can
     * be told to fail after its insert, which must then be rolled back with the consume-log row.
     */
    static class Inventory {
        final JdbcTemplate jdbc;
        final List<Envelope> seen = new CopyOnWriteArrayList<>();
        final List<OrderCreated> orders = new CopyOnWriteArrayList<>();
        final List<String> cancelled = new CopyOnWriteArrayList<>();
        final AtomicInteger failNext = new AtomicInteger();

        Inventory(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @PostboxListener(consumer = "inventory", topics = "order.event", eventTypes = "ORDER_CREATED", versions = 2)
        void reserve(OrderCreated order, Envelope envelope) {
            jdbc.update("INSERT INTO reservation(event_no, sku, qty) VALUES (?, ?, ?)", envelope.eventNo(), order.sku(), order.qty());
            if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("stock service down");
            }
            seen.add(envelope);
            orders.add(order);
        }

        @PostboxListener(consumer = "inventory", topics = "order.event", eventTypes = "ORDER_CANCELLED")
        void release(String payload) {
            cancelled.add(payload);
        }

        @PostboxUpcaster(eventType = "ORDER_CREATED", from = 1)
        String addCurrency(String v1) {
            return v1.substring(0, v1.lastIndexOf('}')) + ",\"currency\":\"EUR\"}";
        }
    }

    /** Postbox + the listeners on {@code dataSource}, the relay polling fast, no worker. */
    static ApplicationContextRunner runner(DataSource dataSource, Class<?>... more) {
        Class<?>[] all = new Class<?>[more.length + 2];
        all[0] = PostboxAutoConfiguration.class;
        all[1] = PostboxListenerAutoConfiguration.class;
        System.arraycopy(more, 0, all, 2, more.length);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(all))
                .withBean(DataSource.class, () -> dataSource)
                .withBean(DataSourceTransactionManager.class, () -> new DataSourceTransactionManager(dataSource))
                .withPropertyValues("spring.application.name=listener-test", "postbox.schema.mode=always",
                        "postbox.relay.enabled=true", "postbox.relay.poll-interval-max=200ms", "postbox.worker.enabled=false");
    }

    static void createReservations(DataSource ds) {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        jdbc.execute("DROP TABLE IF EXISTS reservation");
        jdbc.execute("CREATE TABLE reservation (event_no VARCHAR(64) NOT NULL, sku VARCHAR(32) NOT NULL, qty INT NOT NULL)");
    }

    static OutboxEvent created(String channel, String topic, String eventNo, int version, String payload) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo).eventType("ORDER_CREATED")
                .eventVersion(version).channel(channel).topic(topic).payload(payload).build();
    }

    static OutboxEvent ofType(String type, String channel, String topic, String eventNo) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo).eventType(type)
                .channel(channel).topic(topic).payload("{\"orderNo\":\"" + eventNo + "\"}").build();
    }

    static void write(ApplicationContext context, List<OutboxEvent> events) {
        TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(status -> events.forEach(outbox::write));
    }

    /** event_no to "status fail_reason" of every outbox event. */
    static Map<String, String> outbox(DataSource ds) {
        Map<String, String> out = new TreeMap<>();
        new JdbcTemplate(ds).query("SELECT event_no, publish_status, fail_reason FROM biz_outbox_event",
                rs -> {
                    out.put(rs.getString(1), rs.getInt(2) + (rs.getString(3) == null ? "" : " " + rs.getString(3)));
                });
        return out;
    }

    static void awaitStatus(DataSource ds, String eventNo, int status) {
        Await.until(eventNo + " in status " + status, WAIT, () -> {
            String s = outbox(ds).get(eventNo);
            return s != null && s.startsWith(status + "");
        }, () -> outbox(ds));
    }

    static int count(DataSource ds, String sql, Object... args) {
        Integer n = new JdbcTemplate(ds).queryForObject(sql, Integer.class, args);
        return n == null ? 0 : n;
    }

    /** A listener on a broker: reserves every ORDER_CREATED (any version) with JdbcTemplate. */
    static class BrokerInventory {
        final JdbcTemplate jdbc;
        final List<String> seen = new CopyOnWriteArrayList<>();

        BrokerInventory(DataSource ds) {
            this.jdbc = new JdbcTemplate(ds);
        }

        void reserve(OrderCreated order, Envelope envelope) {
            jdbc.update("INSERT INTO reservation(event_no, sku, qty) VALUES (?, ?, ?)", envelope.eventNo(), order.sku(), order.qty());
            seen.add(envelope.eventNo());
        }
    }
}
