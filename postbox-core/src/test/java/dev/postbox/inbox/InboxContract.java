package dev.postbox.inbox;

import dev.postbox.common.PostboxException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.common.ValidationException;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The idempotent consumer on a real database: the consume log's unique key lets exactly one delivery work. */
public abstract class InboxContract extends DatabaseContract {

    private static final int THREADS = 16;

    @BeforeAll
    final void createCounter() throws SQLException {
        exec("CREATE TABLE consumer_counter (name VARCHAR(32) NOT NULL PRIMARY KEY, n INT NOT NULL)");
    }

    @BeforeEach
    final void resetCounter() throws SQLException {
        exec("DELETE FROM consumer_counter");
        exec("INSERT INTO consumer_counter (name, n) VALUES ('stock', 0)");
    }

    static void increment(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE consumer_counter SET n = n + 1 WHERE name = 'stock'")) {
            ps.executeUpdate();
        }
    }

    private long counter() throws SQLException {
        return queryLong("SELECT n FROM consumer_counter WHERE name = 'stock'");
    }

    private long logRows() throws SQLException {
        return count(postbox.tables().consumeLog());
    }

    /** One delivery of {@code eventNo} to consumer "inventory", in its own committed transaction. */
    private InboxResult<Void> deliver(String eventNo, Inbox.Action work) throws Exception {
        return inTx(c -> postbox.inbox().once(c, "inventory", eventNo, work));
    }

    @Test
    final void sixteenConcurrentDeliveriesOfOneEventRunTheWorkExactlyOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < 5; round++) {
                String eventNo = "EVT-" + round;
                CyclicBarrier start = new CyclicBarrier(THREADS);
                List<Future<InboxResult<Void>>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    futures.add(pool.submit(() -> inTx(c -> {
                        start.await(10, TimeUnit.SECONDS);
                        return postbox.inbox().once(c, "inventory", eventNo, () -> increment(c));
                    })));
                }
                int ran = 0;
                int duplicates = 0;
                for (Future<InboxResult<Void>> f : futures) {
                    InboxResult<Void> r = f.get(60, TimeUnit.SECONDS);
                    ran += r.ran() ? 1 : 0;
                    duplicates += r.duplicate() ? 1 : 0;
                }
                assertThat(ran).as("deliveries that ran, round " + round).isEqualTo(1);
                assertThat(duplicates).as("duplicates, round " + round).isEqualTo(THREADS - 1);
                assertThat(counter()).as("counter after round " + round).isEqualTo(round + 1);
            }
            assertThat(logRows()).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    final void workThatFailsOnceIsRunAgainByRedeliveryAndCountsExactlyOnce() throws Exception {
        AtomicBoolean failNext = new AtomicBoolean(true);
        AtomicInteger invocations = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<Integer>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    for (int delivery = 1; ; delivery++) { // the broker redelivers until the consumer acknowledges
                        try {
                            inTx(c -> postbox.inbox().once(c, "inventory", "EVT-F", () -> {
                                invocations.incrementAndGet();
                                increment(c);
                                if (failNext.compareAndSet(true, false)) {
                                    throw new IllegalStateException("transient failure of the first work");
                                }
                            }));
                            return delivery;
                        } catch (IllegalStateException expected) {
                            failures.incrementAndGet();
                        } catch (dev.postbox.common.PostboxSqlException e) {
                            // MySQL: when the failed delivery's row disappeared, waiting inserts may deadlock;
                            // the victim's delivery failed as a whole and is redelivered like any failure
                            assertThat(e.sqlState()).as(e.getMessage()).startsWith("40");
                            assertThat(delivery).isLessThan(20);
                        }
                    }
                }));
            }
            for (Future<Integer> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counter()).isEqualTo(1);
        assertThat(invocations.get()).as("work invocations: the failed one and the one that counted").isEqualTo(2);
        assertThat(logRows()).isEqualTo(1);
        assertThat(failNext.get()).isFalse();
        assertThat(failures.get()).as("deliveries whose work failed").isEqualTo(1);
    }

    @Test
    final void failingWorkRollsBackItsLogRowEvenWhenTheCallerCommits() throws Exception {
        InboxResult<Void> second;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> postbox.inbox().once(c, "inventory", "EVT-1", () -> {
                increment(c);
                throw new IllegalStateException("stock service down");
            })).isInstanceOf(IllegalStateException.class).hasMessage("stock service down");
            insertOrder(c, "O-1");       // the transaction is still usable on every database
            c.commit();                   // even committed, the failed work and its log row are gone
        }
        assertThat(counter()).isZero();
        assertThat(logRows()).isZero();
        assertThat(count("app_order")).isEqualTo(1);
        second = deliver("EVT-1", () -> { });
        assertThat(second.ran()).as("redelivery after the failure").isTrue();
    }

    @Test
    final void checkedExceptionOfTheWorkIsWrappedAndRolledBack() throws Exception {
        assertThatThrownBy(() -> deliver("EVT-1", () -> {
            throw new java.io.IOException("disk full");
        })).isInstanceOf(PostboxException.class).hasCauseInstanceOf(java.io.IOException.class)
                .hasMessageContaining("inventory").hasMessageContaining("EVT-1");
        assertThat(logRows()).isZero();
    }

    @Test
    final void duplicateDoesNotPoisonTheTransaction() throws Exception {
        deliver("EVT-1", () -> { });
        inTx(c -> {
            InboxResult<String> dup = postbox.inbox().once(c, "inventory", "EVT-1", () -> "never");
            assertThat(dup.duplicate()).isTrue();
            assertThat(dup.value()).isNull();
            InboxResult<String> again = postbox.inbox().once(c, "inventory", "EVT-2", () -> "value");
            assertThat(again.ran()).isTrue();
            assertThat(again.value()).isEqualTo("value");
            InboxResult<String> sameTx = postbox.inbox().once(c, "inventory", "EVT-2", () -> "never");
            assertThat(sameTx.duplicate()).as("second delivery inside the same transaction").isTrue();
            insertOrder(c, "O-1"); // would fail on PostgreSQL if the duplicate had aborted the transaction
            return null;
        });
        assertThat(count("app_order")).isEqualTo(1);
        assertThat(logRows()).isEqualTo(2);
    }

    @Test
    final void anEnvelopeConsumerCommitsOnceAndCommitsNothingWhenItsHandlerFails() throws Exception {
        dev.postbox.spi.Envelope delivery = new dev.postbox.spi.Envelope("ORDER_CREATED:7", "ORDER_CREATED", 1, "ORDER",
                "7", null, null, "order-service", START, java.util.Map.of(), "{}");
        java.util.concurrent.atomic.AtomicBoolean fail = new java.util.concurrent.atomic.AtomicBoolean(true);
        EnvelopeConsumer consumer = new EnvelopeConsumer(ds, postbox.inbox(), "inventory", (c, e) -> {
            increment(c);
            if (fail.get()) {
                throw new IllegalStateException("stock service down");
            }
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> consumer.accept(delivery)).hasMessage("stock service down");
        assertThat(counter()).as("nothing committed: the delivery must come again").isZero();
        fail.set(false);
        assertThat(consumer.accept(delivery).ran()).isTrue();
        assertThat(consumer.accept(delivery).duplicate()).isTrue();
        assertThat(counter()).isEqualTo(1);
    }

    @Test
    final void anObservedConsumerTellsEachDeliverysOutcomeAfterItsTransactionAndAFailingObserverChangesNothing() throws Exception {
        dev.postbox.spi.Envelope delivery = new dev.postbox.spi.Envelope("ORDER_CREATED:8", "ORDER_CREATED", 1, "ORDER",
                "8", null, null, "order-service", START, java.util.Map.of(), "{}");
        java.util.concurrent.atomic.AtomicBoolean fail = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        EnvelopeConsumer consumer = new EnvelopeConsumer(ds, postbox.inbox(), "inventory", (c, e) -> {
            increment(c);
            if (fail.get()) {
                throw new IllegalStateException("stock service down");
            }
        }).observed((e, r, f) -> {
            long committed;
            try {
                committed = counter();
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
            seen.add(e.eventNo() + " " + (f != null ? "FAILED " + f.getMessage() : r.outcome()) + " counter=" + committed);
        }).observed((e, r, f) -> {
            throw new IllegalStateException("a broken observer");
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> consumer.accept(delivery)).hasMessage("stock service down");
        fail.set(false);
        assertThat(consumer.accept(delivery).ran()).as("a throwing observer does not fail a committed delivery").isTrue();
        assertThat(consumer.accept(delivery).duplicate()).isTrue();
        assertThat(seen).as("told after each transaction ended, in order: the work is committed when RAN is told")
                .containsExactly("ORDER_CREATED:8 FAILED stock service down counter=0", "ORDER_CREATED:8 RAN counter=1",
                        "ORDER_CREATED:8 DUPLICATE counter=1");
    }

    @Test
    final void consumersAreIndependent() throws Exception {
        assertThat(inTx(c -> postbox.inbox().once(c, "inventory", "EVT-1", () -> increment(c))).ran()).isTrue();
        assertThat(inTx(c -> postbox.inbox().once(c, "billing", "EVT-1", () -> increment(c))).ran()).isTrue();
        assertThat(counter()).isEqualTo(2);
    }

    @Test
    final void autoCommitConnectionIsRefusedAndNothingRuns() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> postbox.inbox().once(c, "inventory", "EVT-1", () -> ran.set(true)))
                    .isInstanceOf(TransactionRequiredException.class).hasMessageContaining("auto-commit");
        }
        assertThat(ran).isFalse();
        assertThat(logRows()).isZero();
    }

    @Test
    final void badConsumerOrEventNoNamesTheFieldAndLimitAndWritesNothing() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        Inbox.Action work = () -> ran.set(true);
        assertRejected(c -> postbox.inbox().once(c, "x".repeat(129), "EVT-1", work), "consumer", "at most 128");
        assertRejected(c -> postbox.inbox().once(c, null, "EVT-1", work), "consumer", "128");
        assertRejected(c -> postbox.inbox().once(c, " ", "EVT-1", work), "consumer", "blank");
        assertRejected(c -> postbox.inbox().once(c, "inventory", "e".repeat(65), work), "eventNo", "at most 64");
        assertRejected(c -> postbox.inbox().once(c, "inventory", null, work), "eventNo", "64");
        assertRejected(c -> postbox.inbox().once(c, "inventory", " EVT-1", work), "eventNo", "whitespace");
        assertThat(inTx(c -> postbox.inbox().once(c, "c".repeat(128), "e".repeat(64), work)).ran())
                .as("exactly at the limits").isTrue();
        assertThat(logRows()).isEqualTo(1);
    }

    private void assertRejected(TxWork<?> call, String field, String text) throws Exception {
        long before = logRows();
        inTx(c -> {
            assertThatThrownBy(() -> call.run(c)).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo(field)).hasMessageContaining(field).hasMessageContaining(text);
            return null;
        });
        assertThat(logRows()).isEqualTo(before);
    }

    @Test
    final void cleanupDeletesOnlyRowsOlderThanTheRetentionInBoundedBatches() throws Exception {
        for (int i = 0; i < 25; i++) {
            String no = "OLD-" + i;
            deliver(no, () -> { });
        }
        clock.advance(Duration.ofDays(8));
        for (int i = 0; i < 5; i++) {
            String no = "NEW-" + i;
            deliver(no, () -> { });
        }
        assertThat(postbox.inbox().cleanup(Duration.ofDays(7), 10)).isEqualTo(25);
        assertThat(logRows()).isEqualTo(5);
        assertThat(postbox.inbox().cleanup(Duration.ofDays(7), 10)).isZero();
        assertThat(deliver("OLD-1", () -> { }).ran()).as("a redelivery older than the retention runs again").isTrue();
        assertThatThrownBy(() -> postbox.inbox().cleanup(Duration.ofDays(7), 0))
                .isInstanceOf(ValidationException.class).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> postbox.inbox().cleanup(Duration.ofDays(-1), 10))
                .isInstanceOf(ValidationException.class).hasMessageContaining("olderThan");
    }
}
