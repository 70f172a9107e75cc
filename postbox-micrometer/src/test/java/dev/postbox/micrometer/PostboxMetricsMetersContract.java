package dev.postbox.micrometer;

import dev.postbox.Postbox;
import dev.postbox.compensation.CompensationJob;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.testing.DatabaseContract;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The issue-18 meters on a real database: present from the first bind (at 0 or NaN), fed by the monitor's loop and
 * by the relay, inbox and compensation hooks, and the table-wide gauges counted once across instances.
 */
public abstract class PostboxMetricsMetersContract extends DatabaseContract {

    private static final Duration INTERVAL = Duration.ofSeconds(10);

    @BeforeEach
    final void empty() throws Exception {
        exec("DELETE FROM " + postbox.tables().relayInstance());
        exec("DELETE FROM " + postbox.tables().compensationLog());
        exec("DELETE FROM " + postbox.tables().outbox());
    }

    private CompensationJob job(Postbox p) {
        return p.compensationJob("ORDER", "TIMEOUT_CANCEL").maxAttempts(3).scan((c, limit) -> List.of("A", "B"))
                .action((c, key) -> {
                    if (key.equals("B")) {
                        throw new IllegalStateException("B fails");
                    }
                }).build();
    }

    private PostboxMetrics metrics(BacklogMonitor monitor) {
        return PostboxMetrics.builder(monitor).channels(List.of("MQ")).consumers(List.of("inventory"))
                .destinations(e -> "orders".equals(e.topic()) ? "kafka-orders" : null, c -> "event-bus").build();
    }

    @Test
    final void everyMeterIsThereRightAfterBindingBeforeAnyEvent() {
        BacklogMonitor monitor = new BacklogMonitor(postbox.queries(), INTERVAL, null, List.of(job(postbox)));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics(monitor).bindTo(registry);
        for (String table : new String[] {"outbox", "messages", "consume-log", "compensations"}) {
            assertThat(registry.find("postbox.table.rows").tags("table", table, "scope", "table").gauge()).as(table).isNotNull();
            assertThat(registry.find("postbox.table.bytes").tags("table", table, "scope", "table").gauge()).as(table).isNotNull();
        }
        assertThat(registry.find("postbox.relay.instances").tag("scope", "table").gauge()).isNotNull();
        assertThat(registry.find("postbox.relay.fenced").counter().count()).isZero();
        assertThat(registry.find("postbox.relay.lease.expiries").counter()).isNotNull();
        for (String outcome : new String[] {"ran", "duplicate", "failed"}) {
            assertThat(registry.find("postbox.inbox.deliveries").tags("consumer", "inventory", "outcome", outcome)
                    .counter().count()).isZero();
        }
        assertThat(registry.find("postbox.inbox.duplicates").tag("consumer", "inventory").counter().count()).isZero();
        for (String outcome : new String[] {"done", "already_done", "failed", "gave_up", "error"}) {
            assertThat(registry.find("postbox.compensation.outcomes").tags("compensation", "ORDER:TIMEOUT_CANCEL", "outcome", outcome)
                    .counter().count()).isZero();
        }
        assertThat(registry.find("postbox.compensation.pending").tags("compensation", "ORDER:TIMEOUT_CANCEL", "scope", "table")
                .gauge()).isNotNull();
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ", "destination", "event-bus",
                "outcome", "published").counter().count()).isZero();
        assertThat(registry.find("postbox.publish.latency").tags("channel", "MQ", "destination", "event-bus").timer())
                .isNotNull();
        for (String backlog : new String[] {"postbox.outbox.backlog", "postbox.outbox.dead", "postbox.outbox.oldest.age",
                "postbox.message.backlog", "postbox.message.dead", "postbox.message.oldest.age"}) {
            assertThat(registry.find(backlog).meters()).as(backlog).isNotEmpty()
                    .allMatch(m -> "table".equals(m.getId().getTag("scope")));
        }
    }

    @Test
    final void theMonitorsLoopFeedsTableSizesRelayInstancesAndPendingCompensations() throws Exception {
        inTx(c -> {
            for (int i = 0; i < 4; i++) {
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("M-" + i).aggregate("ORDER", "O-" + i)
                        .eventType("ORDER_CREATED").channel("MQ").topic("orders").payload("{}").build());
            }
            return null;
        });
        analyze(postbox.tables().outbox());
        Instant now = dbNow();
        instance("relay-1", "relay", now.minusSeconds(2));
        instance("relay-2", "relay", now.minusSeconds(2));
        instance("relay-gone", "relay", now.minusSeconds(3600));
        instance("worker-1", "worker", now.minusSeconds(2));
        CompensationJob job = job(postbox);
        job.runOnce(); // B fails: one retryable compensation
        BacklogMonitor monitor = new BacklogMonitor(postbox.queries(), INTERVAL, null, List.of(job));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics(monitor).bindTo(registry);
        assertThat(registry.find("postbox.relay.instances").gauge().value()).as("before a read").isNaN();
        monitor.refresh();
        // PostgreSQL's live-tuple count takes other backends' inserts and deletes as they flush their statistics (up
        // to ~10 s late), also after an ANALYZE has set it, so it can stay off for good: re-analyze until none is late
        dev.postbox.testing.Await.until("the outbox's row estimate is 4", java.time.Duration.ofSeconds(60), () -> {
            try {
                analyze(postbox.tables().outbox());
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            monitor.refresh();
            return registry.find("postbox.table.rows").tag("table", "outbox").gauge().value() == 4.0;
        }, () -> registry.find("postbox.table.rows").tag("table", "outbox").gauge().value());
        double bytes = registry.find("postbox.table.bytes").tag("table", "outbox").gauge().value();
        if (postbox.dialect().embedded()) {
            assertThat(bytes).as("H2 keeps no bytes per table").isNaN();
        } else {
            assertThat(bytes).isPositive();
        }
        assertThat(registry.find("postbox.relay.instances").gauge().value()).as("two relays alive").isEqualTo(2.0);
        assertThat(registry.find("postbox.compensation.pending").tag("compensation", "ORDER:TIMEOUT_CANCEL").gauge().value())
                .isEqualTo(1.0);
        assertThat(monitor.instances()).extracting(dev.postbox.query.Monitoring.Instance::instance)
                .contains("relay-1", "worker-1");
    }

    @Test
    final void inboxAndCompensationOutcomesAreCountedForEveryUseOfThePostbox() throws Exception {
        BacklogMonitor monitor = new BacklogMonitor(postbox.queries(), INTERVAL);
        PostboxMetrics metrics = metrics(monitor);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        Postbox observed = newPostbox(b -> b.inboxListener(metrics).compensationListener(metrics));
        inTx(c -> observed.inbox().once(c, "billing", "E-1", () -> { }));
        inTx(c -> observed.inbox().once(c, "billing", "E-1", () -> { }));
        inTx(c -> observed.inbox().once(c, "billing", "E-1", () -> { }));
        try {
            inTx(c -> observed.inbox().once(c, "billing", "E-2", () -> {
                throw new IllegalStateException("no");
            }));
        } catch (IllegalStateException expected) {
            // counted as failed
        }
        assertThat(registry.find("postbox.inbox.deliveries").tags("consumer", "billing", "outcome", "ran").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.find("postbox.inbox.deliveries").tags("consumer", "billing", "outcome", "duplicate").counter()
                .count()).isEqualTo(2.0);
        assertThat(registry.find("postbox.inbox.deliveries").tags("consumer", "billing", "outcome", "failed").counter()
                .count()).isEqualTo(1.0);
        assertThat(registry.find("postbox.inbox.duplicates").tag("consumer", "billing").counter().count()).isEqualTo(2.0);

        CompensationJob job = job(observed);
        job.runOnce();
        job.runOnce();
        String tag = "ORDER:TIMEOUT_CANCEL";
        assertThat(registry.find("postbox.compensation.outcomes").tags("compensation", tag, "outcome", "done").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.find("postbox.compensation.outcomes").tags("compensation", tag, "outcome", "already_done").counter()
                .count()).isEqualTo(1.0);
        assertThat(registry.find("postbox.compensation.outcomes").tags("compensation", tag, "outcome", "failed").counter().count())
                .isEqualTo(2.0);
    }

    @Test
    final void publishMetersCarryTheEventsDestinationAndFencedOutcomesAreCounted() {
        PostboxMetrics metrics = metrics(new BacklogMonitor(postbox.queries(), INTERVAL));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        metrics.published(record("orders"), Duration.ofMillis(20));
        metrics.dead(record("orders"), "too big");
        metrics.published(record("other"), Duration.ofMillis(20));
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ", "destination", "kafka-orders",
                "outcome", "published").counter().count()).isEqualTo(1.0);
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ", "destination", "kafka-orders",
                "outcome", "dead").counter().count()).isEqualTo(1.0);
        assertThat(registry.find("postbox.publish.latency").tags("channel", "MQ", "destination", "kafka-orders").timer()
                .count()).isEqualTo(1);
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ", "destination", "MQ",
                "outcome", "published").counter().count()).as("no destination: the channel").isEqualTo(1.0);
        metrics.fenced("relay-1", 3);
        assertThat(registry.find("postbox.relay.fenced").counter().count()).isEqualTo(3.0);
    }

    /**
     * Two instances on one database: every table-wide gauge shows the same value in both, and the documented
     * aggregation (max over the instances of the series with scope=table, then sum) counts each row once, where a
     * plain sum would count it twice.
     */
    @Test
    final void tableWideGaugesOfTwoInstancesAggregateToOneCount() throws Exception {
        inTx(c -> {
            for (int i = 0; i < 3; i++) {
                postbox.outbox().write(c, OutboxEvent.builder().eventNo("T-" + i).aggregate("ORDER", "T-" + i)
                        .eventType("ORDER_CREATED").channel("MQ").topic("orders").payload("{}").build());
            }
            return null;
        });
        Instant now = dbNow();
        instance("relay-a", "relay", now.minusSeconds(1));
        instance("relay-b", "relay", now.minusSeconds(1));
        SimpleMeterRegistry scrape = new SimpleMeterRegistry(); // stands for Prometheus: both instances' series
        for (String pod : new String[] {"pod-a", "pod-b"}) {
            BacklogMonitor monitor = new BacklogMonitor(newPostbox(b -> { }).queries(), INTERVAL);
            SimpleMeterRegistry own = new SimpleMeterRegistry();
            own.config().commonTags("instance", pod);
            metrics(monitor).bindTo(own);
            monitor.refresh();
            own.getMeters().forEach(m -> copyGauge(m, scrape));
        }
        assertThat(sumOfMaxPerSeries(scrape, "postbox.outbox.backlog", "status", "pending")).isEqualTo(3.0);
        assertThat(plainSum(scrape, "postbox.outbox.backlog", "status", "pending")).as("what a plain sum would show")
                .isEqualTo(6.0);
        assertThat(sumOfMaxPerSeries(scrape, "postbox.relay.instances", null, null)).isEqualTo(2.0);
        assertThat(scrape.find("postbox.relay.instances").meters()).hasSize(2)
                .allMatch(m -> "table".equals(m.getId().getTag("scope")));
    }

    private static void copyGauge(Meter m, MeterRegistry to) {
        if (m.getId().getType() == Meter.Type.GAUGE) {
            double v = m.measure().iterator().next().getValue();
            to.gauge(m.getId().getName(), m.getId().getTags(), v, x -> x);
        }
    }

    /** {@code sum(max without (instance) (name{scope="table", tag=value}))}. */
    private static double sumOfMaxPerSeries(MeterRegistry r, String name, String tag, String value) {
        Map<List<Tag>, Double> max = new HashMap<>();
        r.find(name).tag("scope", "table").meters().stream()
                .filter(m -> tag == null || value.equals(m.getId().getTag(tag)))
                .forEach(m -> max.merge(m.getId().getTags().stream().filter(t -> !t.getKey().equals("instance"))
                                .collect(Collectors.toList()), m.measure().iterator().next().getValue(), Math::max));
        return max.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    private static double plainSum(MeterRegistry r, String name, String tag, String value) {
        return r.find(name).tag(tag, value).meters().stream().mapToDouble(m -> m.measure().iterator().next().getValue()).sum();
    }

    private static OutboxRecord record(String topic) {
        return new OutboxRecord(1L, "E-1", "ORDER", "O-1", "ORDER_CREATED", 1, "test", "MQ", topic, null, "{}", Map.of(),
                dev.postbox.outbox.OutboxStatus.PUBLISHING, 0, 5, null, "r", null, null, null, null, null, null, 0,
                Instant.EPOCH, Instant.EPOCH, 0);
    }

    private Instant dbNow() throws Exception {
        return inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + postbox.dialect().currentTimeSql() + " AS db_now");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return postbox.dialect().readTime(rs, "db_now");
            }
        });
    }

    private void instance(String id, String role, Instant lastSeen) throws Exception {
        inTx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + postbox.tables().relayInstance()
                    + " (instance, role, host, detail, started_time, last_seen_time) VALUES (?, ?, 'h', 'd', ?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, role);
                postbox.dialect().bindTime(ps, 3, lastSeen);
                postbox.dialect().bindTime(ps, 4, lastSeen);
                return ps.executeUpdate();
            }
        });
    }

    private void analyze(String table) throws java.sql.SQLException {
        if (!postbox.dialect().embedded()) {
            exec("ANALYZE " + table);
        }
    }
}
