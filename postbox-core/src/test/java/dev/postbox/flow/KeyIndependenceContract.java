package dev.postbox.flow;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.inbox.InboxResult;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.WriteResult;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Business transactions on different keys never wait for each other because of Postbox's own statements,
 * and so never deadlock through them: each call locks the rows of its own key and nothing else, whatever
 * the keys' neighbours in the unique and status indexes (InnoDB locks index gaps at REPEATABLE READ). The
 * keys of each pair of transactions below sit next to each other in every index Postbox writes.
 */
public abstract class KeyIndependenceContract extends DatabaseContract {

    /** How long a transaction on other keys may take while the first one stays open. */
    private static final long NO_WAIT_SECONDS = 10;

    private interface Step {
        void run(Connection c) throws Exception;
    }

    /**
     * Runs {@code first} in a transaction that stays open, then {@code second} on other keys in another one,
     * which must commit meanwhile: it waits for no lock of the first.
     */
    private void secondNeverWaitsForFirst(Step first, Step second) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            first.run(a);
            Future<?> b = other.submit(() -> inTx(c -> {
                second.run(c);
                return null;
            }));
            try {
                b.get(NO_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("the transaction on other keys waited for the open one for " + NO_WAIT_SECONDS + " s");
            } finally {
                a.rollback();
            }
            b.get(2, TimeUnit.MINUTES);
        } finally {
            other.shutdownNow();
        }
    }

    private static InboxResult<Void> consume(dev.postbox.Postbox p, Connection c, String eventNo) {
        return p.inbox().once(c, "stock", eventNo, () -> { });
    }

    private CompensationResult<String> compensate(Connection c, String key) {
        return postbox.compensations().once(c, "ORDER", key, "CANCEL", conn -> "done");
    }

    @Test
    final void aRedeliveredEventLocksNoNeighbourOfItsKey() throws Exception {
        inTx(c -> consume(postbox, c, "E-1").ran() && consume(postbox, c, "E-3").ran());
        secondNeverWaitsForFirst(
                c -> assertThat(consume(postbox, c, "E-3").outcome()).isEqualTo(InboxResult.Outcome.DUPLICATE),
                c -> assertThat(consume(postbox, c, "E-2").ran()).isTrue());
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(3);
    }

    @Test
    final void aCompensationAlreadyDoneLocksNoNeighbourOfItsKey() throws Exception {
        inTx(c -> compensate(c, "K-1").ran() && compensate(c, "K-3").ran());
        secondNeverWaitsForFirst(
                c -> assertThat(compensate(c, "K-3").outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE),
                c -> assertThat(compensate(c, "K-2").ran()).isTrue());
        assertThat(postbox.compensations().find("ORDER", "K-2", "CANCEL")).isPresent();
    }

    @Test
    final void aCompensationJustDoneLocksNoOtherKey() throws Exception {
        inTx(c -> compensate(c, "K-1").ran());
        secondNeverWaitsForFirst(
                c -> assertThat(compensate(c, "K-3").ran()).isTrue(),
                c -> {
                    assertThat(compensate(c, "K-2").ran()).isTrue();
                    assertThat(compensate(c, "K-4").ran()).isTrue();
                });
    }

    @Test
    final void aFailedCompensationRunAgainLocksNoOtherKey() throws Exception {
        inTx(c -> postbox.compensations().once(c, "ORDER", "K-3", "CANCEL", conn -> {
            throw new IllegalStateException("not yet");
        }).outcome());
        secondNeverWaitsForFirst(
                c -> assertThat(compensate(c, "K-3").attempts()).isEqualTo(2),
                c -> {
                    assertThat(compensate(c, "K-2").ran()).isTrue();
                    assertThat(compensate(c, "K-4").ran()).isTrue();
                });
        assertThat(postbox.compensations().find("ORDER", "K-3", "CANCEL").orElseThrow().attempts()).isEqualTo(1);
    }

    @Test
    final void aMessageTransitionLocksNoOtherMessage() throws Exception {
        long id = inTx(c -> {
            long created = postbox.messages().create(c, message("M-1")).id();
            assertThat(postbox.messages().claim(c, created)).isTrue();
            return created;
        });
        secondNeverWaitsForFirst(
                c -> assertThat(postbox.messages().succeed(c, id)).isTrue(),
                c -> assertThat(postbox.messages().create(c, message("M-2")).inserted()).isTrue());
    }

    /** Whether the database breaks a deadlock by rolling a transaction back (H2 lets a lock wait time out instead). */
    protected boolean detectsDeadlocks() {
        return true;
    }

    /**
     * Two deliveries each of the same two events, in opposite orders, at once: a deadlock no statement can avoid.
     * The database rolls one transaction back, and its exception names the key and says it may be run again.
     */
    @Test
    final void transactionsMeetingOnTheSameKeysInOppositeOrdersGetARetryableError() throws Exception {
        CyclicBarrier firstWritten = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<String>> outcomes = new ArrayList<>();
            for (String[] order : new String[][] {{"E-X", "E-Y"}, {"E-Y", "E-X"}}) {
                outcomes.add(pool.submit(() -> {
                    try {
                        return inTx(c -> {
                            assertThat(consume(postbox, c, order[0]).ran()).isTrue();
                            firstWritten.await(30, TimeUnit.SECONDS);
                            return consume(postbox, c, order[1]).outcome().name();
                        });
                    } catch (PostboxSqlException e) {
                        assertThat(e.getMessage()).contains("for event " + order[1]);
                        if (!detectsDeadlocks()) {
                            assertThat(e.retryable()).as("a lock timeout fails the statement only: " + e).isFalse();
                            return "timed out";
                        }
                        assertThat(e.retryable()).as(e.getMessage()).isTrue();
                        assertThat(e.getMessage()).contains("may be run again from its start");
                        return "retryable";
                    }
                }));
            }
            List<String> results = new ArrayList<>();
            for (Future<String> f : outcomes) {
                results.add(f.get(2, TimeUnit.MINUTES));
            }
            if (detectsDeadlocks()) {
                assertThat(results).containsExactlyInAnyOrder("RAN", "retryable");
            } else {
                // without detection both wait out the same lock timeout: whichever times out (and rolls back) first
                // lets the other finish, unless both time out together
                assertThat(results).contains("timed out").allMatch(r -> r.equals("RAN") || r.equals("timed out"));
            }
            assertThat(count(postbox.tables().consumeLog())).as("the committed transaction's two rows, nothing else")
                    .isEqualTo(2L * results.stream().filter("RAN"::equals).count());
        } finally {
            pool.shutdownNow();
        }
    }

    private static MessageEvent message(String eventNo) {
        return MessageEvent.builder().eventNo(eventNo).eventType("X").biz("ORDER", eventNo).payload("{}").build();
    }

    /**
     * Threads each committing, per transaction, what an order flow writes (the writer-order contract's mix)
     * for a key of its own, after acknowledging a redelivered event and a repeated compensation of its partner
     * thread's neighbouring key (committed before), all threads starting each round together; one more thread
     * delivers the events and runs the compensations the others are working on at that moment (colliding keys,
     * one call a transaction). Nothing fails, and each event's work and each compensation ran exactly once.
     */
    @Test
    final void concurrentOrderFlowsOnNeighbouringKeysNeverDeadlock() throws Exception {
        int threads = 6;
        int transactions = 40;
        inTx(c -> {
            for (int i = 0; i < transactions; i++) {
                for (int t = 0; t < threads; t++) {
                    consume(postbox, c, "E-" + key(i, t) + "-r");
                    compensate(c, key(i, t) + "-r");
                }
            }
            return null;
        });
        Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicReferenceArray<String> current = new AtomicReferenceArray<>(threads);
        AtomicInteger finished = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        CyclicBarrier round = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    try {
                        for (int i = 0; i < transactions; i++) {
                            String key = key(i, thread);
                            // pairs of threads acknowledge each other's redelivery, then write next to it
                            String neighbour = key(i, thread ^ 1) + "-r";
                            current.set(thread, key);
                            round.await(30, TimeUnit.SECONDS);
                            run(failures, key, c -> orderFlow(c, key, neighbour, ran));
                        }
                    } finally {
                        finished.incrementAndGet();
                    }
                    return null;
                }));
            }
            futures.add(pool.submit(() -> {
                start.await(30, TimeUnit.SECONDS);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (finished.get() < threads) {
                    String key = current.get(random.nextInt(threads));
                    if (key != null) {
                        // one call a transaction: a duplicate delivery or a second job on the same key
                        run(failures, "colliding " + key, random.nextBoolean()
                                ? c -> consume(postbox, c, "E-" + key, ran)
                                : c -> compensate(c, key, ran));
                    }
                }
                return null;
            }));
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(failures).as("%d transactions failed (%d order flows)", failures.size(), threads * transactions)
                .isEmpty();
        for (int i = 0; i < transactions; i++) {
            for (int t = 0; t < threads; t++) {
                String key = key(i, t);
                assertThat(ran.get("E-" + key)).as("work of E-%s", key).hasValue(1);
                assertThat(ran.get(key)).as("compensation of %s", key).hasValue(1);
            }
        }
        int total = threads * transactions;
        assertThat(count(postbox.tables().outbox())).isEqualTo(3L * total);
        assertThat(count(postbox.tables().message())).isEqualTo(total);
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(2L * total);
        assertThat(count(postbox.tables().compensationLog())).isEqualTo(2L * total);
    }

    /** Keys of one transaction round sort next to each other in every index: 007-0, 007-0-r, 007-1, ... */
    private static String key(int transaction, int thread) {
        return "%03d-%d".formatted(transaction, thread);
    }

    private void run(Queue<String> failures, String what, Step step) {
        try {
            inTx(c -> {
                step.run(c);
                return null;
            });
        } catch (Exception e) {
            failures.add(what + ": " + e);
        }
    }

    private void orderFlow(Connection c, String key, String neighbour, Map<String, AtomicInteger> ran) {
        assertThat(consume(postbox, c, "E-" + neighbour).outcome()).isEqualTo(InboxResult.Outcome.DUPLICATE);
        assertThat(compensate(c, neighbour).outcome()).isEqualTo(CompensationResult.Outcome.ALREADY_DONE);
        WriteResult e = postbox.outbox().write(c, OutboxEvent.builder().eventNo("E-" + key).aggregate("ORDER", key)
                .eventType("X").channel("MQ").payload("{}").build());
        assertThat(e.inserted()).isTrue();
        assertThat(postbox.outbox().writeAll(c, List.of(
                OutboxEvent.builder().eventNo("B1-" + key).aggregate("ORDER", key).eventType("X").channel("MQ")
                        .payload("{}").build(),
                OutboxEvent.builder().eventNo("B2-" + key).aggregate("ORDER", key).eventType("X").channel("MQ")
                        .payload("{}").build()))).allMatch(WriteResult::inserted);
        assertThat(postbox.messages().create(c, message("M-" + key)).inserted()).isTrue();
        consume(postbox, c, "E-" + key, ran);
        compensate(c, key, ran);
    }

    private void consume(dev.postbox.Postbox p, Connection c, String eventNo, Map<String, AtomicInteger> ran) {
        p.inbox().once(c, "stock", eventNo, () -> ran.computeIfAbsent(eventNo, k -> new AtomicInteger()).incrementAndGet());
    }

    private void compensate(Connection c, String key, Map<String, AtomicInteger> ran) {
        postbox.compensations().once(c, "ORDER", key, "CANCEL",
                conn -> ran.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet());
    }
}
