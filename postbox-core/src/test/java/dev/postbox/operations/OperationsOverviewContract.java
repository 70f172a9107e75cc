package dev.postbox.operations;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overview on a real database: backlogs, the last hour per minute from the heartbeat stats (counts and
 * latency percentiles from the histograms), relays and workers with the leases and job leases they hold, the
 * problems; served from cache for its TTL, and refreshed by one caller while the others get the value before.
 * The heartbeat rows are inserted as the relays and workers of schema version 8 write them.
 */
public abstract class OperationsOverviewContract extends DatabaseContract {

    private final Operator viewer = Operator.of("vera", Role.VIEWER);

    @BeforeEach
    final void emptyOperationsTables() throws SQLException {
        OperationsFixture.emptyOperationsTables(ds, postbox);
    }

    private void write(String eventNo, String aggregateId) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId)
                .eventType("T").channel("MQ").topic("orders").payload("{}").build()));
    }

    private void sql(String sql, Object... params) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof Instant t) {
                    postbox.dialect().bindTime(ps, i + 1, t);
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            ps.executeUpdate();
        }
    }

    private void instance(String id, String role, Instant lastSeen, Instant stopped) throws SQLException {
        sql("INSERT INTO " + postbox.tables().relayInstance() + " (instance, role, host, detail, started_time,"
                + " last_seen_time, stopped_time) VALUES (?, ?, 'host-1', 'test', ?, ?, ?)", id, role,
                lastSeen.minus(Duration.ofHours(1)), lastSeen, stopped);
    }

    private void stats(String instance, Instant start, long succeeded, long failed, long dead, long max, String hist)
            throws SQLException {
        sql("INSERT INTO " + postbox.tables().relayStats() + " (instance, window_start, window_end, succeeded, failed, dead,"
                + " latency_sum_ms, latency_max_ms, latency_hist) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)", instance, start,
                start.plusSeconds(10), succeeded, failed, dead, max, hist);
    }

    private void job(String name, String owner, Instant until) throws SQLException {
        sql("INSERT INTO " + postbox.tables().jobLease() + " (job_name, owner, lease_until, version, update_time)"
                + " VALUES (?, ?, ?, 1, ?)", name, owner, until, START);
    }

    @Test
    final void theOverviewShowsBacklogsTheLastHourRelaysWithTheirLeasesAndWhatNeedsAPerson() throws Exception {
        clock.set(START.minus(Duration.ofMinutes(10)));
        write("E-OLD", "O-1");
        clock.set(START);
        write("E-DEAD", "O-2");
        sql("UPDATE " + postbox.tables().outbox() + " SET publish_status = 5 WHERE event_no = 'E-DEAD'");
        for (int i = 0; i < 4; i++) {
            write("E-P" + i, "O-P" + i);
            sql("UPDATE " + postbox.tables().outbox() + " SET publish_status = 1, locked_by = ? WHERE event_no = ?",
                    i < 3 ? "relay-1" : "ghost", "E-P" + i);
        }
        inTx(c -> postbox.messages().create(c, dev.postbox.message.MessageEvent.builder().eventNo("M-DEAD").eventType("X")
                .biz("ORDER", "O-9").payload("{}").build()));
        sql("UPDATE " + postbox.tables().message() + " SET event_status = 5");
        instance("relay-1", "relay", START.minusSeconds(10), null);
        instance("relay-2", "relay", START.minusSeconds(10), START.minusSeconds(5));
        instance("relay-3", "relay", START.minus(Duration.ofHours(2)), null);
        instance("relay-9", "relay", START.minus(Duration.ofDays(2)), null);
        instance("worker-1", "worker", START.minusSeconds(5), null);
        job("retention", "relay-1", START.plusSeconds(30));
        job("archiver", "sweeper", START.plusSeconds(30));
        job("expired", "relay-3", START.minusSeconds(60));
        Instant minute = START.truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(5));
        stats("relay-1", minute.plusSeconds(3), 100, 3, 1, 4_200, "0,50,0,0,49,0,0,0,0,1,0,0,0,0");
        stats("relay-1", minute.plusSeconds(13), 0, 0, 0, 0, "0,0,0,0,0,0,0,0,0,0,0,0,0,0");
        stats("worker-1", minute.plusSeconds(20), 20, 0, 0, 4, "20,0,0,0,0,0,0,0,0,0,0,0,0,0");
        stats("relay-1", minute.minus(Duration.ofMinutes(10)), 7, 0, 0, 30_000, "1,2");
        stats("relay-1", START.minus(Duration.ofHours(2)), 999, 0, 0, 1, null);
        OperationsFixture.attempt(ds, postbox, "OUTBOX", "E-1", 0, "LEASE_EXPIRED", "relay stopped", "relay-2",
                START.minus(Duration.ofMinutes(30)));
        OperationsFixture.attempt(ds, postbox, "OUTBOX", "E-2", 0, "LEASE_EXPIRED", "relay stopped", "relay-2",
                START.minus(Duration.ofMinutes(20)));
        OperationsFixture.attempt(ds, postbox, "OUTBOX", "E-3", 1, "FAILED", "broker down", "relay-1",
                START.minus(Duration.ofMinutes(20)));
        OperationsFixture.attempt(ds, postbox, "OUTBOX", "E-4", 0, "LEASE_EXPIRED", "relay stopped", "relay-2",
                START.minus(Duration.ofHours(2)));

        Operations ops = postbox.operations(OperationsConfig.defaults());
        Overview o = ops.overview(viewer);
        assertThat(o.outbox().pending()).isEqualTo(1);
        assertThat(o.outbox().inProgress()).isEqualTo(4);
        assertThat(o.outbox().dead()).isEqualTo(1);
        assertThat(o.messages().dead()).isEqualTo(1);
        assertThat(o.lastHour()).hasSize(60);
        assertThat(o.lastHour().get(0).start()).isEqualTo(START.truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(59)));
        assertThat(o.lastHour().get(59).start()).isEqualTo(START.truncatedTo(ChronoUnit.MINUTES));
        Overview.Minute m = o.lastHour().stream().filter(x -> x.start().equals(minute)).findFirst().orElseThrow();
        assertThat(m).extracting(Overview.Minute::published, Overview.Minute::handled, Overview.Minute::failed,
                        Overview.Minute::dead, Overview.Minute::p50Millis, Overview.Minute::p99Millis, Overview.Minute::maxMillis)
                .containsExactly(100L, 20L, 3L, 1L, 10L, 100L, 4_200L);
        Overview.Minute malformed = o.lastHour().stream().filter(x -> x.start().equals(minute.minus(Duration.ofMinutes(10))))
                .findFirst().orElseThrow();
        assertThat(malformed).extracting(Overview.Minute::published, Overview.Minute::p50Millis, Overview.Minute::maxMillis)
                .as("a histogram of other buckets: no percentiles, the exact maximum").containsExactly(7L, null, 30_000L);
        assertThat(o.lastHour().stream().mapToLong(Overview.Minute::published).sum()).as("older than an hour: not shown")
                .isEqualTo(107);
        assertThat(o.instances()).extracting(Overview.Instance::instance, Overview.Instance::role, Overview.Instance::alive,
                        Overview.Instance::leasesHeld, Overview.Instance::jobs)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("relay-1", "relay", true, 3L, List.of("retention")),
                        org.assertj.core.groups.Tuple.tuple("sweeper", "job", true, 0L, List.of("archiver")),
                        org.assertj.core.groups.Tuple.tuple("worker-1", "worker", true, 0L, List.of()),
                        org.assertj.core.groups.Tuple.tuple("ghost", "relay", false, 1L, List.of()),
                        org.assertj.core.groups.Tuple.tuple("relay-2", "relay", false, 0L, List.of()),
                        org.assertj.core.groups.Tuple.tuple("relay-3", "relay", false, 0L, List.of()));
        assertThat(o.blocked()).isEqualTo(1);
        assertThat(o.problems()).extracting(Overview.Problem::code)
                .containsExactly("DEAD_EVENTS", "BLOCKED_AGGREGATES", "LEASES_TAKEN_OVER", "OLDEST_PENDING");
        assertThat(o.problems().get(2).message()).startsWith("2 leases");
        assertThat(o.problems().get(0).message()).contains("1 outbox and 1 message events are DEAD");

        // cached: the same overview until its TTL has passed
        write("E-DEAD-2", "O-3");
        sql("UPDATE " + postbox.tables().outbox() + " SET publish_status = 5 WHERE event_no = 'E-DEAD-2'");
        sql("UPDATE " + postbox.tables().relayInstance() + " SET last_seen_time = ? WHERE instance = 'relay-1'",
                START.minus(Duration.ofMinutes(10)));
        clock.advance(Duration.ofSeconds(4));
        assertThat(ops.overview(viewer)).isSameAs(o);
        clock.advance(Duration.ofSeconds(1));
        Overview fresh = ops.overview(viewer);
        assertThat(fresh).isNotSameAs(o);
        assertThat(fresh.outbox().dead()).isEqualTo(2);
        assertThat(fresh.problems().get(0)).extracting(Overview.Problem::severity, Overview.Problem::code)
                .containsExactly(Overview.Severity.CRITICAL, "NO_LIVE_RELAY");
        assertThat(fresh.problems().get(0).message()).contains("5 unfinished events");
    }

    @Test
    final void oneCallerRefreshesTheOverviewWhileTheOthersGetTheOneBefore() throws Exception {
        write("E-1", "O-1");
        AtomicInteger statsReads = new AtomicInteger();
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean gated = new java.util.concurrent.atomic.AtomicBoolean();
        String statsTable = postbox.tables().relayStats();
        DataSource watched = watching(ds, sql -> {
            if (sql.contains(statsTable)) {
                statsReads.incrementAndGet();
                if (gated.get()) {
                    reached.countDown();
                    await(open);
                }
            }
        });
        Postbox p = Postbox.builder(watched).clock(clock).build();
        Operations ops = p.operations(OperationsConfig.defaults());
        Overview first = ops.overview(viewer);
        assertThat(statsReads.get()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(6));
        gated.set(true);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            Future<Overview> refresher = pool.submit(() -> ops.overview(viewer));
            assertThat(reached.await(10, TimeUnit.SECONDS)).as("the refresh reads the stats").isTrue();
            List<Future<Overview>> others = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                others.add(pool.submit(() -> ops.overview(viewer)));
            }
            for (Future<Overview> f : others) {
                assertThat(f.get(10, TimeUnit.SECONDS)).as("served the overview before, at once").isSameAs(first);
            }
            assertThat(ops.overview(viewer)).isSameAs(first);
            open.countDown();
            Overview refreshed = refresher.get(10, TimeUnit.SECONDS);
            assertThat(refreshed).isNotSameAs(first);
            assertThat(ops.overview(viewer)).isSameAs(refreshed);
            assertThat(statsReads.get()).as("one refresh for six callers").isEqualTo(2);
        } finally {
            open.countDown();
            pool.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the gate was not opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** {@code real}, telling {@code onPrepare} the SQL of every statement prepared on its connections first. */
    private static DataSource watching(DataSource real, java.util.function.Consumer<String> onPrepare) {
        InvocationHandler connections = (proxy, method, args) -> {
            if (method.getName().equals("getConnection")) {
                Connection c = (Connection) invoke(method, real, args);
                return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                        (p, m, a) -> {
                            if (m.getName().equals("prepareStatement") && a != null && a[0] instanceof String sql) {
                                onPrepare.accept(sql);
                            }
                            return invoke(m, c, a);
                        });
            }
            return invoke(method, real, args);
        };
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                connections);
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
