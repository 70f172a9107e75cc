package dev.postbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one conformance suite every transport is bound to (issue 5): a real relay publishes through the
 * transport's publisher to the real broker, the transport's consumer helper hands every delivery to an
 * {@link EnvelopeConsumer} whose work records it in a table, in the same transaction as the inbox row.
 * A binding supplies the {@link Broker}; the suite checks that every header round-trips, that 10,000
 * events of 100 aggregates arrive once each and in aggregate order, that a re-published event is
 * deduplicated by the broker where it can be and its work runs once everywhere, and that a broker
 * unavailable for 20 s while the relay runs loses nothing and keeps the order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TransportContract {

    /** What a transport's binding provides; created once per test class. */
    public interface Broker extends AutoCloseable {

        /** The topic of the events this suite writes: it must route to what {@link #consume} reads. */
        String topic();

        /** The routing key of the events (RabbitMQ), or null. */
        default String routingKey() {
            return null;
        }

        /** The transport's publisher, as the relay uses it. */
        Publisher publisher();

        /** Starts the transport's consumer helper, handing every delivery to {@code consumer}. */
        AutoCloseable consume(EnvelopeConsumer consumer) throws Exception;

        /** Makes the broker unavailable to the publisher now, for {@code length}; returns at once. */
        void outage(Duration length) throws Exception;

        /** Whether the broker itself drops a second publish of the same event_no. */
        boolean deduplicates();
    }

    /** The transport under test. */
    protected abstract Broker startBroker() throws Exception;

    private TestDatabase db;
    private HikariDataSource ds;
    private Postbox postbox;
    private Broker broker;
    private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Envelope> envelopes = new ConcurrentLinkedQueue<>();
    /**
     * Prefix of this test's event numbers: a broker may hand a new consumer what earlier tests published
     * (a stream or topic read from the start); those events are not in the outbox any more and are ignored.
     */
    private String run;

    @BeforeAll
    final void start() throws Exception {
        db = TestDatabase.postgres(null);
        HikariConfig cfg = new HikariConfig();
        cfg.setDataSource(db.dataSource());
        cfg.setMaximumPoolSize(6);
        cfg.setPoolName("transport-contract");
        // one commit per consumed event: no fsync wait on the consumer side (durability is not under test here)
        cfg.setConnectionInitSql("SET synchronous_commit TO off");
        cfg.setIsolateInternalQueries(true);
        ds = new HikariDataSource(cfg);
        postbox = Postbox.builder(ds).source("transport-contract").build();
        postbox.schema().install();
        exec("CREATE TABLE received (n BIGSERIAL PRIMARY KEY, event_no VARCHAR(64) NOT NULL, aggregate_id VARCHAR(64)"
                + " NOT NULL, outbox_id BIGINT NOT NULL)");
        broker = startBroker();
    }

    @AfterAll
    final void stop() throws Exception {
        try {
            if (broker != null) {
                broker.close();
            }
        } finally {
            if (ds != null) {
                ds.close();
            }
            if (db != null) {
                db.close();
            }
        }
    }

    @BeforeEach
    final void empty() throws Exception {
        exec("DELETE FROM received");
        exec("DELETE FROM " + postbox.tables().consumeLog());
        exec("DELETE FROM " + postbox.tables().outbox());
        deliveries.clear();
        envelopes.clear();
        run = "T" + Long.toString(System.nanoTime(), 36) + "-";
    }

    /**
     * The consumer: its work records the event (one row per event that ran, in arrival order, in the inbox's
     * transaction) and keeps its envelope; every delivery, duplicate or not, is counted on the way in.
     */
    private EnvelopeConsumer counting(String name) {
        dev.postbox.inbox.Inbox inbox = postbox.inbox();
        dev.postbox.inbox.Inbox countingInbox = new dev.postbox.inbox.Inbox() {
            @Override
            public <T> dev.postbox.inbox.InboxResult<T> once(Connection c, String consumer, String eventNo, Work<T> work) {
                deliveries.computeIfAbsent(eventNo, k -> new AtomicInteger()).incrementAndGet();
                return inbox.once(c, consumer, eventNo, work);
            }

            @Override
            public dev.postbox.inbox.InboxResult<Void> once(Connection c, String consumer, String eventNo, Action action) {
                deliveries.computeIfAbsent(eventNo, k -> new AtomicInteger()).incrementAndGet();
                return inbox.once(c, consumer, eventNo, action);
            }

            @Override
            public long cleanup(Duration olderThan, int batchSize) {
                return inbox.cleanup(olderThan, batchSize);
            }
        };
        return new EnvelopeConsumer(ds, countingInbox, name, (c, e) -> {
            envelopes.add(e);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO received (event_no, aggregate_id, outbox_id)"
                    + " SELECT ?, ?, id FROM " + postbox.tables().outbox() + " WHERE event_no = ?")) {
                ps.setString(1, e.eventNo());
                ps.setString(2, e.aggregateId());
                ps.setString(3, e.eventNo());
                ps.executeUpdate();
            }
        });
    }

    private Relay relay() {
        return postbox.relay(broker.publisher()).instanceId("contract-" + System.nanoTime()).batchSize(500)
                .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(1))).build();
    }

    private OutboxEvent.Builder event(String eventNo, String aggregateId, int seq) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId).eventType("ORDER_CHANGED")
                .channel("MQ").topic(broker.topic()).routingKey(broker.routingKey())
                .payload("{\"seq\":" + seq + "}").maxRetries(1000);
    }

    private void write(List<OutboxEvent> events) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < events.size(); i += 500) {
                postbox.outbox().writeAll(c, events.subList(i, Math.min(events.size(), i + 500)));
            }
            c.commit();
        }
    }

    @Test
    final void everyEnvelopeFieldAndThePayloadRoundTrip() throws Exception {
        String payload = "{\"orderNo\":\"Ä-42\",\"note\":\"naïve café – 東京 🚚\",\"amount\":12.50}";
        String eventNo = run + "ORDER_CREATED:Ä-42";
        write(List.of(OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", "Ä-42")
                .eventType("ORDER_CREATED").eventVersion(3).source("order-service").channel("MQ").topic(broker.topic())
                .routingKey(broker.routingKey()).payload(payload).traceId("trace-4bf92f35")
                .header("tenantId", "t-1").header("region", "eu-west")
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build()));
        OutboxRecord written = postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
        try (AutoCloseable consuming = broker.consume(counting("round-trip")); Relay relay = relay().start()) {
            await(() -> envelopes.stream().anyMatch(e -> e.eventNo().equals(eventNo)), Duration.ofSeconds(30), "the delivery");
        }
        Envelope got = envelopes.stream().filter(e -> e.eventNo().equals(eventNo)).findFirst().orElseThrow();
        Envelope expected = Envelope.of(written);
        assertThat(got.eventNo()).isEqualTo(expected.eventNo());
        assertThat(got.eventType()).isEqualTo("ORDER_CREATED");
        assertThat(got.eventVersion()).isEqualTo(3);
        assertThat(got.aggregateType()).isEqualTo("ORDER");
        assertThat(got.aggregateId()).isEqualTo("Ä-42");
        assertThat(got.traceId()).isEqualTo("trace-4bf92f35");
        assertThat(got.traceparent()).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(got.source()).isEqualTo("order-service");
        assertThat(got.createTime()).isEqualTo(expected.createTime());
        Map<String, String> own = new HashMap<>();
        got.headers().forEach((k, v) -> own.put(k.toLowerCase(java.util.Locale.ROOT), v));
        assertThat(own).containsEntry("tenantid", "t-1").containsEntry("region", "eu-west");
        assertThat(got.payload()).isEqualTo(payload);
    }

    @Test
    final void manyEventsOfAHundredAggregatesArriveOnceEachInAggregateOrder() throws Exception {
        int n = TestScale.events(10_000);
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event(run + i, "A" + (i % 100), i).build());
        }
        write(events);
        try (AutoCloseable consuming = broker.consume(counting("ordered")); Relay relay = relay().start()) {
            await(() -> count("SELECT COUNT(*) FROM received") >= n, Duration.ofSeconds(120), n + " deliveries");
        }
        assertThat(count("SELECT COUNT(*) FROM received")).isEqualTo(n);
        assertThat(count("SELECT COUNT(DISTINCT event_no) FROM received")).isEqualTo(n);
        assertThat(orderViolations()).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status <> 2")).isZero();
    }

    @Test
    final void aRepublishedEventIsDeduplicatedByTheBrokerOrAbsorbedByTheInbox() throws Exception {
        String twice = run + "TWICE";
        write(List.of(event(twice, "A1", 1).build()));
        OutboxRecord r = postbox.queries().outbox().byEventNo(twice).orElseThrow();
        try (AutoCloseable consuming = broker.consume(counting("dedup"))) {
            for (int i = 0; i < 2; i++) {
                PublishResult result = broker.publisher().publish(List.of(r)).get(0).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                assertThat(result.kind()).as("publish " + (i + 1)).isEqualTo(PublishResult.Kind.PUBLISHED);
            }
            int expected = broker.deduplicates() ? 1 : 2;
            await(() -> deliveries.containsKey(twice) && deliveries.get(twice).get() >= expected, Duration.ofSeconds(30),
                    expected + " deliveries");
            Thread.sleep(1_000); // time for one more delivery, if the broker lets one through
        }
        assertThat(count("SELECT COUNT(*) FROM received WHERE event_no = '" + twice + "'")).as("the work ran once").isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().consumeLog() + " WHERE event_no = '" + twice + "'"))
                .isEqualTo(1);
        if (broker.deduplicates()) {
            assertThat(deliveries.get(twice).get()).as("the broker dropped the second publish").isEqualTo(1);
        } else {
            assertThat(deliveries.get(twice).get()).as("both copies reached the consumer").isEqualTo(2);
        }
    }

    @Test
    final void aBrokerUnavailableFor20SecondsLosesNothingAndKeepsTheOrder() throws Exception {
        try (AutoCloseable consuming = broker.consume(counting("outage")); Relay relay = relay().start()) {
            List<OutboxEvent> before = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                before.add(event(run + i, "A" + (i % 20), i).build());
            }
            write(before);
            await(() -> count("SELECT COUNT(*) FROM received") >= 100, Duration.ofSeconds(60), "deliveries before the outage");
            broker.outage(Duration.ofSeconds(20));
            long outageStarted = System.nanoTime();
            for (int i = 500; i < 1_000; i++) {
                write(List.of(event(run + i, "A" + (i % 20), i).build()));
                if (i % 50 == 0) {
                    Thread.sleep(1_000);
                }
            }
            await(() -> count("SELECT COUNT(*) FROM received") >= 1_000, Duration.ofSeconds(180), "1,000 deliveries");
            assertThat(Duration.ofNanos(System.nanoTime() - outageStarted)).as("the outage really held deliveries back")
                    .isGreaterThan(Duration.ofSeconds(10));
        }
        assertThat(count("SELECT COUNT(DISTINCT event_no) FROM received")).isEqualTo(1_000);
        assertThat(count("SELECT COUNT(*) FROM received")).as("the inbox absorbed re-deliveries").isEqualTo(1_000);
        assertThat(orderViolations()).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = "
                + OutboxStatus.DEAD.code())).isZero();
        assertThat(count("SELECT MAX(retry_count) FROM " + postbox.tables().outbox())).as("the relay retried")
                .isPositive();
    }

    /** Per aggregate, the work must have run in outbox id order. */
    private List<String> orderViolations() throws Exception {
        List<String> violations = new ArrayList<>();
        Map<String, Long> last = new HashMap<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT aggregate_id, outbox_id FROM received ORDER BY n")) {
            while (rs.next()) {
                Long previous = last.put(rs.getString(1), rs.getLong(2));
                if (previous != null && previous > rs.getLong(2)) {
                    violations.add(rs.getString(1) + ": " + rs.getLong(2) + " after " + previous);
                }
            }
        }
        return violations;
    }

    private void exec(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private long count(String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void await(BooleanSupplier condition, Duration timeout, String what) {
        Await.until(what, timeout, condition);
    }
}
