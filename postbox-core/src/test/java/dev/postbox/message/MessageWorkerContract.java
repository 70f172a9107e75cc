package dev.postbox.message;

import dev.postbox.common.RetryPolicy;
import dev.postbox.common.ValidationException;
import dev.postbox.spi.NonRetryableException;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The message-event worker on a real database: claims, handler outcomes, retries, policies, recovery, fencing. */
public abstract class MessageWorkerContract extends DatabaseContract {

    private static final String TYPE = "STOCK_RESERVE";

    /** Handler invocations per event_no. */
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @BeforeEach
    final void forgetCalls() {
        calls.clear();
    }

    private MessageHandler counting(MessageHandler then) {
        return event -> {
            calls.computeIfAbsent(event.eventNo(), k -> new AtomicInteger()).incrementAndGet();
            then.handle(event);
        };
    }

    private int calls(String eventNo) {
        AtomicInteger n = calls.get(eventNo);
        return n == null ? 0 : n.get();
    }

    private void createEvents(String type, String prefix, int n, int maxRetries) throws Exception {
        for (int from = 0; from < n; from += 500) {
            int start = from;
            inTx(c -> {
                for (int i = start; i < Math.min(n, start + 500); i++) {
                    postbox.messages().create(c, MessageEvent.builder().eventNo(prefix + i).eventType(type)
                            .biz("ORDER", "O-" + i).payload("{\"i\":" + i + "}").maxRetries(maxRetries).build());
                }
                return null;
            });
        }
    }

    private long createEvent(String eventNo, String type, int maxRetries) throws Exception {
        return inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo(eventNo).eventType(type)
                .biz("ORDER", "O-1").payload("{}").maxRetries(maxRetries).build())).id();
    }

    private MessageRecord stored(String eventNo) {
        return postbox.queries().messages().byEventNo(eventNo).orElseThrow();
    }

    private MessageWorkerBuilder worker(String id) {
        return postbox.worker().instanceId(id).retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1))))
                .handlerTimeout(Duration.ofSeconds(5)).stuckTimeout(Duration.ofSeconds(20));
    }

    private long withStatus(MessageStatus s) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().message() + " WHERE event_status = ?", s.code());
    }

    @Test
    final void anOpenClaimOfOneEventTypeDoesNotHideTheEventsOfAnother() throws Exception {
        // interleaved ids: A-0, B-0, A-1, B-1, ... so a claim of A walks past B rows in every index
        inTx(c -> {
            for (int i = 0; i < 200; i++) {
                for (String type : List.of("TYPE_A", "TYPE_B")) {
                    postbox.messages().create(c, MessageEvent.builder().eventNo(type + "-" + i).eventType(type)
                            .biz("ORDER", "O-" + i).payload("{}").build());
                }
            }
            return null;
        });
        WorkerStore a = new WorkerStore(postbox.dialect(), postbox.tables().message(), java.util.Set.of("TYPE_A"));
        WorkerStore b = new WorkerStore(postbox.dialect(), postbox.tables().message(), java.util.Set.of("TYPE_B"));
        try (java.sql.Connection first = ds.getConnection(); java.sql.Connection second = ds.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            try {
                assertThat(a.claim(first, 50, clock.instant())).hasSize(50)
                        .allMatch(r -> r.eventType().equals("TYPE_A"));
                // the first claim's transaction is still open: its locks must cover only the rows it took
                List<MessageRecord> other = b.claim(second, 50, clock.instant());
                assertThat(other).as("TYPE_B events claimable while a TYPE_A claim is open").hasSize(50)
                        .allMatch(r -> r.eventType().equals("TYPE_B"));
                assertThat(other).extracting(MessageRecord::eventNo).contains("TYPE_B-0", "TYPE_B-49");
            } finally {
                first.rollback();
                second.rollback();
            }
        }
    }

    @Test
    final void fourWorkersHandleManyEventsEachExactlyOnce() throws Exception {
        int n = dev.postbox.testing.TestScale.events(10_000);
        createEvents(TYPE, "E-", n, 3);
        List<MessageWorker> workers = new ArrayList<>();
        List<AtomicInteger> perWorker = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int w = 0; w < 4; w++) {
                AtomicInteger mine = new AtomicInteger();
                perWorker.add(mine);
                workers.add(worker("w" + w).handler(TYPE, counting(e -> mine.incrementAndGet())).batchSize(250)
                        .threads(w % 2 == 0 ? 1 : 2)
                        .pollInterval(Duration.ofMillis(1), Duration.ofMillis(20)).start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (withStatus(MessageStatus.SUCCEEDED) < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        } finally {
            workers.forEach(MessageWorker::close);
        }
        System.out.printf("%s: 4 workers x %d events in %d ms, per worker %s%n", db.kind(), n,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), perWorker);
        assertThat(perWorker.stream().filter(c -> c.get() > 0).count()).as("workers that handled events").isGreaterThan(1);
        assertThat(withStatus(MessageStatus.SUCCEEDED)).isEqualTo(n);
        assertThat(calls).hasSize(n);
        assertThat(calls.values().stream().filter(c -> c.get() != 1).count()).as("events handled more than once").isZero();
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().message() + " WHERE retry_count <> 0 OR version <> 2"))
                .as("events with a retry or more than one claim").isZero();
    }

    @Test
    final void alwaysFailingHandlerEndsDeadAfterMaxRetriesWithItsReason() throws Exception {
        createEvent("M-1", TYPE, 2);
        AtomicInteger attempt = new AtomicInteger();
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void failed(MessageRecord event, String reason, java.time.Instant nextRetry) {
                heard.add("failed " + event.eventNo() + " until " + nextRetry);
            }

            @Override
            public void dead(MessageRecord event, String reason) {
                heard.add("dead " + event.eventNo() + ": " + reason);
            }
        };
        try (MessageWorker w = worker("w1").listener(listener).handler(TYPE, counting(e -> {
            throw new IllegalStateException("stock service down #" + attempt.incrementAndGet());
        })).build()) {
            WorkerCycle first = w.runOnce();
            assertThat(first.claimed()).isEqualTo(1);
            assertThat(first.retried()).isEqualTo(1);
            MessageRecord failed = stored("M-1");
            assertThat(failed.status()).isEqualTo(MessageStatus.FAILED);
            assertThat(failed.retryCount()).isEqualTo(1);
            assertThat(failed.nextRetryTime()).isEqualTo(START.plus(Duration.ofMinutes(1)));
            assertThat(failed.failReason()).isEqualTo("java.lang.IllegalStateException: stock service down #1");

            assertThat(w.runOnce().claimed()).as("not due before next_retry_time").isZero();
            clock.advance(Duration.ofMinutes(1));
            assertThat(w.runOnce().retried()).isEqualTo(1);
            assertThat(stored("M-1").retryCount()).isEqualTo(2);
            clock.advance(Duration.ofMinutes(1));
            WorkerCycle last = w.runOnce();
            assertThat(last.dead()).isEqualTo(1);
            MessageRecord dead = stored("M-1");
            assertThat(dead.status()).isEqualTo(MessageStatus.DEAD);
            assertThat(dead.retryCount()).isEqualTo(3);
            assertThat(dead.nextRetryTime()).isNull();
            assertThat(dead.failReason()).isEqualTo("retries exhausted (2): java.lang.IllegalStateException: stock service down #3");
            clock.advance(Duration.ofHours(1));
            assertThat(w.runOnce().claimed()).as("DEAD is never claimed").isZero();
        }
        assertThat(calls("M-1")).isEqualTo(3);
        assertThat(heard).containsExactly("failed M-1 until " + START.plus(Duration.ofMinutes(1)),
                "failed M-1 until " + START.plus(Duration.ofMinutes(2)),
                "dead M-1: retries exhausted (2): java.lang.IllegalStateException: stock service down #3");
    }

    @Test
    final void workersWithFlakyHandlersLoseNothingAndCountEveryFailedAttempt() throws Exception {
        int n = 2_000;
        createEvents(TYPE, "F-", n, 50);
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        MessageHandler flaky = counting(e -> {
            if (java.util.concurrent.ThreadLocalRandom.current().nextInt(4) == 0) {
                failures.computeIfAbsent(e.eventNo(), k -> new AtomicInteger()).incrementAndGet();
                throw new IllegalStateException("flaky downstream");
            }
        });
        List<MessageWorker> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                workers.add(worker("f" + w).handler(TYPE, flaky).batchSize(100)
                        .retryPolicy(RetryPolicy.fixed(List.of(Duration.ZERO)))
                        .pollInterval(Duration.ofMillis(1), Duration.ofMillis(20)).start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (withStatus(MessageStatus.SUCCEEDED) < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        } finally {
            workers.forEach(MessageWorker::close);
        }
        assertThat(withStatus(MessageStatus.SUCCEEDED)).isEqualTo(n);
        assertThat(failures).as("some attempts failed").isNotEmpty();
        for (int i = 0; i < n; i++) {
            String no = "F-" + i;
            int failed = failures.containsKey(no) ? failures.get(no).get() : 0;
            assertThat(calls(no)).as(no + ": invocations = failed attempts + the one that succeeded").isEqualTo(failed + 1);
        }
        assertThat(queryLong("SELECT SUM(retry_count) FROM " + postbox.tables().message()))
                .as("every failed attempt was recorded")
                .isEqualTo(failures.values().stream().mapToLong(AtomicInteger::get).sum());
    }

    @Test
    final void nonRetryableFailureIsDeadAtOnce() throws Exception {
        createEvent("M-1", TYPE, 3);
        try (MessageWorker w = worker("w1").handler(TYPE, counting(e -> {
            throw new NonRetryableException("payload has no orderNo");
        })).build()) {
            assertThat(w.runOnce().dead()).isEqualTo(1);
        }
        MessageRecord dead = stored("M-1");
        assertThat(dead.status()).isEqualTo(MessageStatus.DEAD);
        assertThat(dead.retryCount()).isEqualTo(1);
        assertThat(dead.failReason()).startsWith("not retryable: ").contains("payload has no orderNo");
    }

    @Test
    final void cancelledEventsAreNeverHandled() throws Exception {
        long pending = createEvent("M-PENDING", TYPE, 3);
        long failing = createEvent("M-FAILED", TYPE, 3);
        createEvent("M-OK", TYPE, 3);
        AtomicBoolean fail = new AtomicBoolean(true);
        try (MessageWorker w = worker("w1").handler(TYPE, counting(e -> {
            if (e.eventNo().equals("M-FAILED") && fail.get()) {
                throw new IllegalStateException("first attempt fails");
            }
        })).build()) {
            assertThat(this.<Boolean>inTx(c -> postbox.messages().cancel(c, pending, "order closed"))).isTrue();
            WorkerCycle cycle = w.runOnce();
            assertThat(cycle.claimed()).isEqualTo(2);
            assertThat(stored("M-FAILED").status()).isEqualTo(MessageStatus.FAILED);
            assertThat(this.<Boolean>inTx(c -> postbox.messages().cancel(c, failing, "no longer needed"))).isTrue();
            fail.set(false);
            clock.advance(Duration.ofHours(1));
            assertThat(w.runOnce().claimed()).isZero();
        }
        assertThat(calls("M-PENDING")).isZero();
        assertThat(calls("M-FAILED")).isEqualTo(1);
        assertThat(calls("M-OK")).isEqualTo(1);
        assertThat(stored("M-PENDING").status()).isEqualTo(MessageStatus.CANCELLED);
        assertThat(stored("M-FAILED").status()).isEqualTo(MessageStatus.CANCELLED);
    }

    @Test
    final void cancelledAfterMaxRetriesWhereTheTypeAllowsItAndDeadOtherwise() throws Exception {
        createEvent("M-NOTIFY", "SEND_SMS", 1);
        createEvent("M-REFUND", "REFUND", 1);
        MessageHandler failing = counting(e -> {
            throw new IllegalStateException("gateway down");
        });
        try (MessageWorker w = worker("w1").handler("SEND_SMS", failing, AfterMaxRetries.CANCELLED)
                .handler("REFUND", failing).build()) {
            assertThat(w.runOnce().retried()).isEqualTo(2);
            clock.advance(Duration.ofMinutes(1));
            WorkerCycle last = w.runOnce();
            assertThat(last.cancelled()).isEqualTo(1);
            assertThat(last.dead()).isEqualTo(1);
        }
        MessageRecord sms = stored("M-NOTIFY");
        assertThat(sms.status()).isEqualTo(MessageStatus.CANCELLED);
        assertThat(sms.retryCount()).isEqualTo(2);
        assertThat(sms.failReason()).isEqualTo("retries exhausted (1): cancelled by policy: java.lang.IllegalStateException: gateway down");
        MessageRecord refund = stored("M-REFUND");
        assertThat(refund.status()).as("critical events are never cancelled automatically").isEqualTo(MessageStatus.DEAD);
        assertThat(refund.retryCount()).isEqualTo(2);
    }

    @Test
    final void stuckProcessingEventIsRecoveredAndTheOldOwnersLateWriteIsRejected() throws Exception {
        createEvent("M-1", TYPE, 3);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger oldOwnerCalls = new AtomicInteger();
        AtomicInteger newOwnerCalls = new AtomicInteger();
        ExecutorService background = Executors.newSingleThreadExecutor();
        try (MessageWorker old = worker("old").handler(TYPE, e -> {
                 oldOwnerCalls.incrementAndGet();
                 entered.countDown();
                 release.await(30, TimeUnit.SECONDS); // hangs (a long GC pause, a lost network) and then succeeds
             }).build();
             MessageWorker fresh = worker("new").handler(TYPE, e -> newOwnerCalls.incrementAndGet()).build()) {
            Future<WorkerCycle> oldCycle = background.submit(old::runOnce);
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(stored("M-1").status()).isEqualTo(MessageStatus.PROCESSING);

            clock.advance(Duration.ofSeconds(19));
            assertThat(fresh.runOnce().recovered()).as("not stuck yet").isZero();
            clock.advance(Duration.ofSeconds(1));
            WorkerCycle recovery = fresh.runOnce();
            assertThat(recovery.recovered()).isEqualTo(1);
            assertThat(recovery.claimed()).as("due only after the retry delay").isZero();
            MessageRecord recovered = stored("M-1");
            assertThat(recovered.status()).isEqualTo(MessageStatus.FAILED);
            assertThat(recovered.retryCount()).as("the stuck attempt counts").isEqualTo(1);
            assertThat(recovered.failReason()).startsWith("recovered by worker new: ").contains("stuck in PROCESSING");

            release.countDown();
            WorkerCycle late = oldCycle.get(30, TimeUnit.SECONDS);
            assertThat(late.fenced()).as("the old owner's late success").isEqualTo(1);
            assertThat(late.succeeded()).isZero();
            assertThat(stored("M-1").status()).as("not overwritten by the old owner").isEqualTo(MessageStatus.FAILED);
            assertThat(stored("M-1").version()).isEqualTo(recovered.version());

            clock.advance(Duration.ofMinutes(1));
            assertThat(fresh.runOnce().succeeded()).isEqualTo(1);
        } finally {
            background.shutdownNow();
        }
        assertThat(stored("M-1").status()).isEqualTo(MessageStatus.SUCCEEDED);
        assertThat(oldOwnerCalls.get()).isEqualTo(1);
        assertThat(newOwnerCalls.get()).isEqualTo(1);
    }

    @Test
    final void eventsWaitingInASlowBatchAreKeptFromLookingStuck() throws Exception {
        createEvents(TYPE, "M-", 3, 3);
        AtomicInteger recoveredByOther = new AtomicInteger(-1);
        try (MessageWorker other = worker("other").handler("UNRELATED", e -> { }).build();
             MessageWorker w = worker("slow").batchSize(3).handler(TYPE, counting(e -> {
                 if (e.eventNo().equals("M-0")) {
                     clock.advance(Duration.ofSeconds(21)); // the first handler takes longer than the stuck timeout
                 } else if (e.eventNo().equals("M-1")) {
                     recoveredByOther.set(stuckRecoveredBy(TYPE));
                 }
             })).build()) {
            WorkerCycle cycle = w.runOnce();
            assertThat(cycle.succeeded()).isEqualTo(3);
            assertThat(cycle.fenced()).isZero();
        }
        assertThat(recoveredByOther.get()).as("events recovered by another worker while they waited").isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(calls("M-" + i)).isEqualTo(1);
        }
        assertThat(stored("M-2").lastHandleTime()).as("refreshed before M-1 ran").isEqualTo(START.plusSeconds(21));
    }

    /** Runs one cycle of a second worker for {@code type} and returns how many stuck events it recovered. */
    private int stuckRecoveredBy(String type) {
        try (MessageWorker rescuer = worker("rescuer").handler(type, e -> { }).build()) {
            return rescuer.runOnce().recovered();
        }
    }

    @Test
    final void handlerOverrunningItsTimeoutIsInterruptedAndRetried() throws Exception {
        createEvent("M-1", TYPE, 3);
        AtomicBoolean interrupted = new AtomicBoolean();
        try (MessageWorker w = worker("w1").handlerTimeout(Duration.ofMillis(200)).stuckTimeout(Duration.ofSeconds(1))
                .handler(TYPE, e -> {
                    try {
                        Thread.sleep(10_000);
                    } catch (InterruptedException stop) {
                        interrupted.set(true);
                        throw stop;
                    }
                }).build()) {
            long started = System.nanoTime();
            assertThat(w.runOnce().retried()).isEqualTo(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        }
        MessageRecord m = stored("M-1");
        assertThat(m.status()).isEqualTo(MessageStatus.FAILED);
        assertThat(m.failReason()).contains("timed out after PT0.2S");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!interrupted.get() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(interrupted).as("the overrunning handler was interrupted").isTrue();
    }

    @Test
    final void closeFinishesTheHandlerInProgressAndReleasesTheRestOfTheBatch() throws Exception {
        createEvents(TYPE, "M-", 5, 3);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        MessageWorker w = worker("w1").batchSize(5).handler(TYPE, counting(e -> {
            entered.countDown();
            release.await(30, TimeUnit.SECONDS);
        })).start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closing = new Thread(w::close);
        closing.start();
        Thread.sleep(200); // close() has asked the worker to stop; the handler in progress is still running
        release.countDown();
        closing.join(30_000);
        assertThat(closing.isAlive()).isFalse();
        assertThat(withStatus(MessageStatus.SUCCEEDED)).isEqualTo(1);
        assertThat(withStatus(MessageStatus.FAILED)).isEqualTo(4);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().message()
                + " WHERE event_status = 3 AND retry_count = 0 AND fail_reason LIKE 'released unhandled%'")).isEqualTo(4);
        try (MessageWorker next = worker("w2").handler(TYPE, counting(e -> { })).build()) {
            assertThat(next.runOnce().succeeded()).as("released events are due at once").isEqualTo(4);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(calls("M-" + i)).as("M-" + i).isEqualTo(1);
        }
    }

    @Test
    final void anErrorFromAHandlerOrAListenerIsRecordedAndTheWorkerThreadGoesOn() throws Exception {
        createEvent("M-1", TYPE, 3);
        createEvent("M-2", TYPE, 3);
        WorkerListener throwing = new WorkerListener() {
            @Override
            public void handled(MessageRecord event, Duration took, Throwable error) {
                throw new NoClassDefFoundError("dev/example/Missing");
            }
        };
        MessageWorker w = worker("w-err").listener(throwing).pollInterval(Duration.ofMillis(5), Duration.ofMillis(20))
                .handler(TYPE, counting(e -> {
                    if (e.eventNo().equals("M-1")) {
                        throw new AssertionError("handler assertion");
                    }
                })).start();
        try {
            dev.postbox.testing.Await.until("M-1 failed, M-2 succeeded", Duration.ofSeconds(30),
                    () -> stored("M-1").status() == MessageStatus.FAILED && stored("M-2").status() == MessageStatus.SUCCEEDED);
            assertThat(stored("M-1").failReason()).contains("AssertionError").contains("handler assertion");
            assertThat(stored("M-1").retryCount()).isEqualTo(1);
            assertThat(w.isRunning()).as("the worker thread survived both errors").isTrue();
            createEvent("M-3", TYPE, 3);
            w.wakeUp();
            dev.postbox.testing.Await.until("M-3 handled by the same thread", Duration.ofSeconds(30),
                    () -> stored("M-3").status() == MessageStatus.SUCCEEDED);
            assertThat(w.isRunning()).isTrue();
        } finally {
            w.close();
        }
        assertThat(w.isRunning()).isFalse();
        assertThat(withStatus(MessageStatus.PROCESSING)).isZero();
    }

    @Test
    final void aWorkerClaimsOnlyTheTypesItHandles() throws Exception {
        createEvent("M-MINE", TYPE, 3);
        createEvent("M-OTHER", "OTHER_TYPE", 3);
        try (MessageWorker w = worker("w1").handler(TYPE, counting(e -> { })).build()) {
            assertThat(w.runOnce().succeeded()).isEqualTo(1);
            assertThat(w.runOnce().claimed()).isZero();
        }
        assertThat(stored("M-OTHER").status()).isEqualTo(MessageStatus.PENDING);
        assertThat(calls("M-OTHER")).isZero();
    }

    @Test
    final void changingEveryBuilderSettingAfterBuildChangesNothingOfTheBuiltWorker() throws Exception {
        createEvent("M-0", TYPE, 3);      // fails: retried after the retry policy's delay
        createEvent("M-1", TYPE, 3);      // succeeds
        createEvent("M-LAST", TYPE, 0);   // fails with no retry left: what afterMaxRetries says
        createEvent("M-2", TYPE, 3);      // beyond the batch
        createEvent("M-OTHER", "OTHER_TYPE", 3);
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> heardLater = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger laterHandlerCalls = new AtomicInteger();
        MessageHandler handler = counting(e -> {
            if (!e.eventNo().equals("M-1")) {
                throw new IllegalStateException("gateway down");
            }
        });
        WorkerListener listener = new WorkerListener() {
            @Override
            public void handled(MessageRecord event, Duration took, Throwable error) {
                heard.add(event.eventNo());
            }
        };
        RetryPolicy retry = RetryPolicy.fixed(List.of(Duration.ofMinutes(1)));
        MessageWorkerBuilder b = postbox.worker().instanceId("frozen").handler(TYPE, handler).retryPolicy(retry)
                .errorClassifier(dev.postbox.spi.ErrorClassifier.DEFAULT).threads(1).batchSize(3)
                .pollInterval(Duration.ofMillis(10), Duration.ofSeconds(1)).handlerTimeout(Duration.ofSeconds(5))
                .stuckTimeout(Duration.ofSeconds(20)).shutdownTimeout(Duration.ofSeconds(15)).listener(listener)
                .heartbeatInterval(Duration.ofSeconds(3));
        try (MessageWorker w = b.build()) {
            javax.sql.DataSource unusable = new org.h2.jdbcx.JdbcDataSource(); // no URL: every connection fails
            MessageHandler later = e -> laterHandlerCalls.incrementAndGet();
            b.instanceId("changed").handler(TYPE, later, AfterMaxRetries.CANCELLED).handler("OTHER_TYPE", later)
                    .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofHours(1))))
                    .retryPolicy(TYPE, RetryPolicy.fixed(List.of(Duration.ofHours(2))))
                    .errorClassifier(error -> dev.postbox.spi.ErrorClassifier.Decision.DEAD).threads(7).batchSize(50)
                    .pollInterval(Duration.ofSeconds(2), Duration.ofSeconds(5)).handlerTimeout(Duration.ofMillis(1))
                    .stuckTimeout(Duration.ofHours(1)).shutdownTimeout(Duration.ofMillis(1))
                    .listener(new WorkerListener() {
                        @Override
                        public void handled(MessageRecord event, Duration took, Throwable error) {
                            heardLater.add(event.eventNo());
                        }
                    }).dataSource(unusable).heartbeatInterval(Duration.ofSeconds(30));

            assertThat(w.instanceId()).isEqualTo("frozen");
            WorkerConfig config = w.config();
            assertThat(config.handlers()).containsOnlyKeys(TYPE).containsEntry(TYPE, handler);
            assertThat(config.afterMaxRetries()).containsOnly(Map.entry(TYPE, AfterMaxRetries.DEAD));
            assertThat(config.retryPolicies()).isEmpty();
            assertThat(config.retryPolicy()).isSameAs(retry);
            assertThat(config.classifier()).isSameAs(dev.postbox.spi.ErrorClassifier.DEFAULT);
            assertThat(List.of(config.threads(), config.batchSize())).containsExactly(1, 3);
            assertThat(List.of(config.pollMin(), config.pollMax(), config.handlerTimeout(), config.stuckTimeout(),
                    config.shutdownTimeout())).containsExactly(Duration.ofMillis(10), Duration.ofSeconds(1),
                    Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(15));
            assertThat(config.dataSource()).as("the worker's own pool, not the one set later").isNull();
            assertThat(config.listener()).isSameAs(listener);
            assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
            assertThatThrownBy(() -> config.handlers().put("X", later)).isInstanceOf(UnsupportedOperationException.class);

            WorkerCycle cycle = w.runOnce();
            assertThat(cycle.claimed()).as("the batch size built").isEqualTo(3);
            assertThat(cycle.succeeded()).isEqualTo(1);
            assertThat(cycle.retried()).as("the classifier built: retryable").isEqualTo(1);
            assertThat(cycle.dead()).as("afterMaxRetries built: DEAD").isEqualTo(1);
            assertThat(cycle.cancelled()).isZero();
        }
        assertThat(stored("M-0").nextRetryTime()).as("the retry policy built").isEqualTo(START.plus(Duration.ofMinutes(1)));
        assertThat(stored("M-LAST").status()).isEqualTo(MessageStatus.DEAD);
        assertThat(stored("M-2").status()).isEqualTo(MessageStatus.PENDING);
        assertThat(stored("M-OTHER").status()).as("a type added later is not claimed").isEqualTo(MessageStatus.PENDING);
        assertThat(List.of(calls("M-0"), calls("M-1"), calls("M-LAST"))).containsExactly(1, 1, 1);
        assertThat(laterHandlerCalls).hasValue(0);
        assertThat(heard).containsExactly("M-0", "M-1", "M-LAST");
        assertThat(heardLater).isEmpty();
    }

    @Test
    final void badWorkerSettingsNameTheSetting() {
        MessageHandler h = e -> { };
        assertThatThrownBy(() -> postbox.worker().build()).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("handlers"));
        assertThatThrownBy(() -> postbox.worker().handler("x".repeat(65), h)).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("eventType")).hasMessageContaining("at most 64");
        assertThatThrownBy(() -> postbox.worker().handler(TYPE, h).batchSize(0).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("batchSize"))
                .hasMessageContaining("between 1 and 5000");
        assertThatThrownBy(() -> postbox.worker().handler(TYPE, h).handlerTimeout(Duration.ofSeconds(30))
                .stuckTimeout(Duration.ofSeconds(59)).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("stuckTimeout"))
                .hasMessageContaining("twice handlerTimeout");
        assertThatThrownBy(() -> postbox.worker().handler(TYPE, h).pollInterval(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("pollInterval.max"));
    }
}
