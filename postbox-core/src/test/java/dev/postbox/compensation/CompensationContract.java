package dev.postbox.compensation;

import dev.postbox.common.TransactionRequiredException;
import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.Orders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The compensation guard and job on a real database (seed 003, sections 十四 and 十五). */
public abstract class CompensationContract extends DatabaseContract {

    private static final Duration ORDER_TIMEOUT = Duration.ofMinutes(10);

    /** Action invocations per order. */
    private final Map<String, AtomicInteger> actions = new ConcurrentHashMap<>();

    @BeforeAll
    final void createOrders() throws Exception {
        inTx(c -> {
            Orders.createTable(c);
            return null;
        });
    }

    @BeforeEach
    final void emptyOrders() throws SQLException {
        exec("DELETE FROM orders");
        actions.clear();
    }

    private void createOrders(int n) throws Exception {
        inTx(c -> {
            for (int i = 0; i < n; i++) {
                Orders.insert(c, String.format("ORD-%05d", i), START.minusSeconds(i));
            }
            return null;
        });
    }

    /** Seed 003's compensation: cancel the order and emit ORDER_CANCELLED in the same transaction. */
    private void cancelAndEmit(Connection c, String orderNo) throws SQLException {
        actions.computeIfAbsent(orderNo, k -> new AtomicInteger()).incrementAndGet();
        Orders.cancelUnconditionally(c, orderNo);
        postbox.outbox().write(c, OutboxEvent.builder()
                .eventNo(UUID.randomUUID().toString())   // random on purpose: only the log may prevent a second event
                .aggregate("ORDER", orderNo).eventType("ORDER_CANCELLED")
                .channel("MQ").topic("order.event").payload("{\"orderNo\":\"" + orderNo + "\"}").build());
    }

    private CompensationJob.Builder timeoutJob() {
        return postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
                .scan((c, limit) -> Orders.timedOut(c, clock.instant().minus(ORDER_TIMEOUT), limit))
                .action(this::cancelAndEmit);
    }

    private long cancelledEvents() throws SQLException {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE event_type = 'ORDER_CANCELLED'");
    }

    private CompensationRecord log(String orderNo) {
        return postbox.compensations().find("ORDER", orderNo, "TIMEOUT_CANCEL").orElseThrow();
    }

    @Test
    final void twoJobsRacingOverAThousandTimedOutOrdersCancelEachExactlyOnce() throws Exception {
        int n = 1000;
        createOrders(n);
        clock.advance(ORDER_TIMEOUT.plusMinutes(1));
        CompensationJob a = timeoutJob().batchSize(100).build();
        CompensationJob b = timeoutJob().batchSize(100).build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CyclicBarrier start = new CyclicBarrier(2);
        long started = System.nanoTime();
        try {
            List<Future<int[]>> runs = new ArrayList<>();
            for (CompensationJob job : List.of(a, b)) {
                runs.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    int[] totals = new int[3];
                    for (int i = 0; i < 1000; i++) {
                        CompensationJob.Run run = job.runOnce();
                        if (run.scanned() == 0) {
                            return totals;
                        }
                        totals[0] += run.done();
                        totals[1] += run.alreadyDone();
                        totals[2] += run.errors() + run.failed() + run.gaveUp();
                    }
                    throw new AssertionError("job did not finish");
                }));
            }
            int done = 0;
            for (Future<int[]> f : runs) {
                int[] t = f.get(120, TimeUnit.SECONDS);
                done += t[0];
                System.out.printf("%s: job done=%d alreadyDone=%d other=%d%n", db.kind(), t[0], t[1], t[2]);
            }
            assertThat(done).as("compensations done by both jobs").isEqualTo(n);
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("%s: 2 jobs x %d orders in %d ms%n", db.kind(), n,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertThat(queryLong("SELECT COUNT(*) FROM orders WHERE status = 'CANCELLED' AND cancel_count = 1")).isEqualTo(n);
        assertThat(actions).hasSize(n);
        assertThat(actions.values().stream().filter(x -> x.get() != 1).count()).as("orders compensated twice").isZero();
        assertThat(cancelledEvents()).isEqualTo(n);
        assertThat(queryLong("SELECT COUNT(DISTINCT aggregate_id) FROM " + postbox.tables().outbox()
                + " WHERE event_type = 'ORDER_CANCELLED'")).isEqualTo(n);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().compensationLog()
                + " WHERE compensate_status = 'DONE' AND attempts = 1")).isEqualTo(n);
    }

    @Test
    final void failedCompensationIsRolledBackRecordedAndRunAgainButDoneNeverIs() throws Exception {
        createOrders(1);
        String orderNo = "ORD-00000";
        CompensationResult<Void> failed = inTx(c -> postbox.compensations().once(c, "ORDER", orderNo, "TIMEOUT_CANCEL",
                conn -> {
                    cancelAndEmit(conn, orderNo);
                    throw new IllegalStateException("inventory service unreachable");
                }));
        assertThat(failed.outcome()).isEqualTo(CompensationResult.Outcome.FAILED);
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(failed.error()).hasMessage("inventory service unreachable");
        assertThat(queryString("SELECT status FROM orders WHERE order_no = ?", orderNo)).as("undone").isEqualTo("CREATED");
        assertThat(cancelledEvents()).isZero();
        CompensationRecord record = log(orderNo);
        assertThat(record.status()).isEqualTo(CompensationStatus.FAILED);
        assertThat(record.attempts()).isEqualTo(1);
        assertThat(record.lastError()).isEqualTo("java.lang.IllegalStateException: inventory service unreachable");

        clock.advance(Duration.ofSeconds(5));
        CompensationResult<String> second = inTx(c -> postbox.compensations().once(c, "ORDER", orderNo, "TIMEOUT_CANCEL",
                conn -> {
                    cancelAndEmit(conn, orderNo);
                    return "cancelled";
                }));
        assertThat(second.outcome()).isEqualTo(CompensationResult.Outcome.DONE);
        assertThat(second.value()).isEqualTo("cancelled");
        assertThat(second.attempts()).isEqualTo(2);
        CompensationRecord done = log(orderNo);
        assertThat(done.status()).isEqualTo(CompensationStatus.DONE);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.lastError()).as("evidence of the earlier failure is kept").contains("unreachable");
        assertThat(done.updateTime()).isEqualTo(START.plusSeconds(5));

        CompensationResult<String> third = inTx(c -> postbox.compensations().once(c, "ORDER", orderNo, "TIMEOUT_CANCEL",
                conn -> {
                    cancelAndEmit(conn, orderNo);
                    return "again";
                }));
        assertThat(third.outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE);
        assertThat(third.value()).isNull();
        assertThat(actions.get(orderNo).get()).isEqualTo(2);
        assertThat(cancelledEvents()).isEqualTo(1);
        assertThat(queryLong("SELECT cancel_count FROM orders WHERE order_no = ?", orderNo)).isEqualTo(1);
    }

    @Test
    final void compensationThatKeepsFailingIsGivenUpAfterMaxAttempts() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Compensations.Action<Void> failing = c -> {
            runs.incrementAndGet();
            throw new IllegalStateException("still broken");
        };
        for (int i = 0; i < 2; i++) {
            assertThat(inTx(c -> postbox.compensations().once(c, "ORDER", "O-1", "REFUND", 2, failing)).outcome())
                    .isEqualTo(CompensationResult.Outcome.FAILED);
        }
        CompensationResult<Void> gaveUp = inTx(c -> postbox.compensations().once(c, "ORDER", "O-1", "REFUND", 2, failing));
        assertThat(gaveUp.outcome()).isEqualTo(CompensationResult.Outcome.GAVE_UP);
        assertThat(gaveUp.attempts()).isEqualTo(2);
        assertThat(runs.get()).isEqualTo(2);
        assertThat(postbox.compensations().find("ORDER", "O-1", "REFUND").orElseThrow().status())
                .isEqualTo(CompensationStatus.FAILED);
    }

    @Test
    final void jobCountsFailuresAndRetriesThemOnTheNextRun() throws Exception {
        createOrders(3);
        clock.advance(ORDER_TIMEOUT.plusMinutes(1));
        AtomicInteger calls = new AtomicInteger();
        CompensationJob job = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
                .scan((c, limit) -> Orders.timedOut(c, clock.instant().minus(ORDER_TIMEOUT), limit))
                .action((c, orderNo) -> {
                    if (orderNo.equals("ORD-00001") && calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first try fails");
                    }
                    cancelAndEmit(c, orderNo);
                }).build();
        CompensationJob.Run first = job.runOnce();
        assertThat(first).isEqualTo(new CompensationJob.Run(3, 2, 0, 1, 0, 0));
        CompensationJob.Run second = job.runOnce();
        assertThat(second).isEqualTo(new CompensationJob.Run(1, 1, 0, 0, 0, 0));
        assertThat(job.runOnce().scanned()).isZero();
        assertThat(log("ORD-00001").attempts()).isEqualTo(2);
        assertThat(cancelledEvents()).isEqualTo(3);
    }

    @Test
    final void startedJobRunsOnItsScheduleUntilClosed() throws Exception {
        createOrders(5);
        clock.advance(ORDER_TIMEOUT.plusMinutes(1));
        try (CompensationJob job = timeoutJob().interval(Duration.ofMillis(20)).build().start()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (cancelledEvents() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertThat(cancelledEvents()).isEqualTo(5);
    }

    @Test
    final void changingEveryBuilderSettingAfterBuildChangesNothingOfTheBuiltJob() throws Exception {
        createOrders(5);
        clock.advance(ORDER_TIMEOUT.plusMinutes(1));
        AtomicInteger laterCalls = new AtomicInteger();
        CompensationJob.Scan scan = (c, limit) -> Orders.timedOut(c, clock.instant().minus(ORDER_TIMEOUT), limit);
        CompensationJob.KeyAction action = this::cancelAndEmit;
        CompensationJob.Builder b = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL").scan(scan).action(action)
                .batchSize(2).maxAttempts(1).interval(Duration.ofSeconds(30)).dataSource(ds);
        CompensationJob job = b.build();
        b.scan((c, limit) -> {
            laterCalls.incrementAndGet();
            return List.of();
        }).action((c, key) -> laterCalls.incrementAndGet()).batchSize(100).maxAttempts(7)
                .interval(Duration.ofMillis(1)).dataSource(new org.h2.jdbcx.JdbcDataSource()); // no URL: unusable

        JobConfig config = job.config();
        assertThat(config.scan()).isSameAs(scan);
        assertThat(config.action()).isSameAs(action);
        assertThat(List.of(config.batchSize(), config.maxAttempts())).containsExactly(2, 1);
        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.dataSource()).isSameAs(ds);
        assertThat(job.runOnce()).as("the batch size, scan and action built").isEqualTo(new CompensationJob.Run(2, 2, 0, 0, 0, 0));
        assertThat(laterCalls).hasValue(0);
        assertThat(actions).hasSize(2);
        assertThat(cancelledEvents()).isEqualTo(2);
    }

    @Test
    final void aStartedJobRunsAtOnceAndCloseWaitsForTheRunInProgress() throws Exception {
        createOrders(1);
        clock.advance(ORDER_TIMEOUT.plusMinutes(1));
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        CompensationJob job = postbox.compensationJob("ORDER", "TIMEOUT_CANCEL")
                .scan((c, limit) -> Orders.timedOut(c, clock.instant().minus(ORDER_TIMEOUT), limit))
                .action((c, key) -> {
                    entered.countDown();
                    assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                    cancelAndEmit(c, key);
                }).interval(Duration.ofHours(1)).build().start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).as("the first run starts at once, not after the interval").isTrue();
        Thread closing = new Thread(job::close);
        closing.start();
        closing.join(300);
        assertThat(closing.isAlive()).as("close() waits for the run in progress").isTrue();
        release.countDown();
        closing.join(30_000);
        assertThat(closing.isAlive()).isFalse();
        assertThat(cancelledEvents()).as("the run in progress finished and committed").isEqualTo(1);
        assertThat(log("ORD-00000").status()).isEqualTo(CompensationStatus.DONE);
    }

    @Test
    final void autoCommitConnectionIsRefused() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> postbox.compensations().once(c, "ORDER", "O-1", "TIMEOUT_CANCEL", conn -> null))
                    .isInstanceOf(TransactionRequiredException.class);
        }
        assertThat(count(postbox.tables().compensationLog())).isZero();
    }

    @Test
    final void badInputNamesTheFieldAndLimitAndWritesNothing() throws Exception {
        Compensations.Action<Void> action = c -> {
            throw new AssertionError("must not run");
        };
        rejected(c -> postbox.compensations().once(c, "x".repeat(65), "O-1", "CANCEL", action), "bizType", "at most 64");
        rejected(c -> postbox.compensations().once(c, "ORDER", null, "CANCEL", action), "bizKey", "64");
        rejected(c -> postbox.compensations().once(c, "ORDER", "O-1", "a".repeat(65), action), "actionType", "at most 64");
        rejected(c -> postbox.compensations().once(c, "ORDER", "O-1", "CANCEL", 0, action), "maxAttempts", "between 1 and 1000");
        assertThat(count(postbox.tables().compensationLog())).isZero();
        assertThatThrownBy(() -> postbox.compensationJob("ORDER", "CANCEL").action((c, k) -> { }).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("scan"));
        assertThatThrownBy(() -> timeoutJob().batchSize(0).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("batchSize"));
        assertThatThrownBy(() -> postbox.compensationJob("ORDER", " ").scan((c, l) -> List.of()).action((c, k) -> { }).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("actionType"));
    }

    private void rejected(TxWork<?> call, String field, String text) throws Exception {
        inTx(c -> {
            assertThatThrownBy(() -> call.run(c)).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo(field)).hasMessageContaining(text);
            return null;
        });
    }

}
