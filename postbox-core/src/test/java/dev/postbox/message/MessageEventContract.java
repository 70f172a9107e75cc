package dev.postbox.message;

import dev.postbox.common.TransactionRequiredException;
import dev.postbox.outbox.WriteResult;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Seed 000's message-event writes on a real database: idempotent create and the guarded state machine. */
public abstract class MessageEventContract extends DatabaseContract {

    static MessageEvent.Builder message(String eventNo) {
        return MessageEvent.builder().eventNo(eventNo).eventType("ORDER_CREATED").biz("ORDER", "O-1")
                .payload("{\"orderNo\":\"O-1\"}");
    }

    private long create(MessageEvent.Builder b) throws Exception {
        return inTx(c -> postbox.messages().create(c, b.build())).id();
    }

    private MessageRecord stored(String eventNo) {
        return postbox.queries().messages().byEventNo(eventNo).orElseThrow();
    }

    private <T> T auto(TxWork<T> work) throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            return work.run(c);
        }
    }

    private boolean claim(long id) throws Exception {
        return this.<Boolean>auto(c -> postbox.messages().claim(c, id));
    }

    private boolean succeed(long id) throws Exception {
        return this.<Boolean>auto(c -> postbox.messages().succeed(c, id));
    }

    private boolean cancel(long id, String reason) throws Exception {
        return this.<Boolean>auto(c -> postbox.messages().cancel(c, id, reason));
    }

    private FailOutcome fail(long id, String reason, Duration retryAfter) throws Exception {
        return auto(c -> postbox.messages().fail(c, id, reason, retryAfter));
    }

    private FailOutcome failPermanently(long id, String reason) throws Exception {
        return auto(c -> postbox.messages().failPermanently(c, id, reason));
    }

    @Test
    final void createStoresSeed000FieldsWithDefaults() throws Exception {
        create(message("M-1").traceId("trace-1").remark("r"));
        MessageRecord m = stored("M-1");
        assertThat(m.status()).isEqualTo(MessageStatus.PENDING);
        assertThat(m.eventType()).isEqualTo("ORDER_CREATED");
        assertThat(m.bizType()).isEqualTo("ORDER");
        assertThat(m.bizId()).isEqualTo("O-1");
        assertThat(m.source()).isEqualTo("test-service");
        assertThat(m.payload().replace(" ", "")).isEqualTo("{\"orderNo\":\"O-1\"}");
        assertThat(m.retryCount()).isZero();
        assertThat(m.maxRetryCount()).isEqualTo(3);
        assertThat(m.traceId()).isEqualTo("trace-1");
        assertThat(m.remark()).isEqualTo("r");
        assertThat(m.createTime()).isEqualTo(START);
        assertThat(m.lastHandleTime()).isNull();
    }

    @Test
    final void createRequiresTheCallersTransaction() throws Exception {
        assertThatThrownBy(() -> auto(c -> postbox.messages().create(c, message("M-1").build())))
                .isInstanceOf(TransactionRequiredException.class);
        assertThat(count(postbox.tables().message())).isZero();
    }

    @Test
    final void secondCreateWithSameEventNoChangesNothing() throws Exception {
        long id = create(message("M-1"));
        assertThat(claim(id)).isTrue();
        MessageRecord before = stored("M-1");
        clock.advance(Duration.ofSeconds(30));
        WriteResult again = inTx(c -> postbox.messages().create(c, message("M-1").biz("ORDER", "O-9")
                .payload("{\"changed\":true}").maxRetries(9).build()));
        assertThat(again.duplicate()).isTrue();
        assertThat(stored("M-1")).isEqualTo(before);
    }

    @Test
    final void rolledBackCreateLeavesNoEvent() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-1");
            postbox.messages().create(c, message("M-1").build());
            c.rollback();
        }
        assertThat(count(postbox.tables().message())).isZero();
        assertThat(count("app_order")).isZero();
    }

    @Test
    final void claimThenSucceedFollowsTheStateMachine() throws Exception {
        long id = create(message("M-1"));
        assertThat(succeed(id)).as("succeed from PENDING").isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(claim(id)).isTrue();
        MessageRecord processing = stored("M-1");
        assertThat(processing.status()).isEqualTo(MessageStatus.PROCESSING);
        assertThat(processing.lastHandleTime()).isEqualTo(START.plusSeconds(1));
        assertThat(processing.version()).isEqualTo(1);
        assertThat(claim(id)).as("second claim").isFalse();
        assertThat(succeed(id)).isTrue();
        assertThat(succeed(id)).as("succeed twice").isFalse();
        MessageRecord done = stored("M-1");
        assertThat(done.status()).isEqualTo(MessageStatus.SUCCEEDED);
        assertThat(done.successTime()).isEqualTo(START.plusSeconds(1));
        assertThat(claim(id)).as("claim after success").isFalse();
        assertThat(cancel(id, "late")).as("cancel after success").isFalse();
    }

    @Test
    final void failedEventIsRetriedOnlyWhenDueAndDiesAfterItsLastRetry() throws Exception {
        long id = create(message("M-1").maxRetries(2));
        Duration backoff = Duration.ofMinutes(5);
        for (int attempt = 1; attempt <= 2; attempt++) {
            assertThat(claim(id)).as("claim attempt " + attempt).isTrue();
            int a = attempt;
            assertThat(fail(id, "inventory timeout #" + a, backoff))
                    .isEqualTo(FailOutcome.RETRY_SCHEDULED);
            MessageRecord failed = stored("M-1");
            assertThat(failed.status()).isEqualTo(MessageStatus.FAILED);
            assertThat(failed.retryCount()).isEqualTo(attempt);
            assertThat(failed.failReason()).isEqualTo("inventory timeout #" + attempt);
            assertThat(failed.nextRetryTime()).isEqualTo(clock.instant().plus(backoff));
            clock.advance(backoff.minusMillis(1));
            assertThat(claim(id)).as("claim before due").isFalse();
            clock.advance(Duration.ofMillis(1));
        }
        assertThat(claim(id)).as("last retry").isTrue();
        assertThat(fail(id, "still down", backoff)).isEqualTo(FailOutcome.DEAD);
        MessageRecord dead = stored("M-1");
        assertThat(dead.status()).isEqualTo(MessageStatus.DEAD);
        assertThat(dead.retryCount()).isEqualTo(3);
        assertThat(dead.failReason()).isEqualTo("still down");
        assertThat(dead.nextRetryTime()).isNull();
        clock.advance(Duration.ofDays(1));
        assertThat(claim(id)).as("claim of a dead event").isFalse();
        assertThat(cancel(id, "x")).as("cancel of a dead event").isFalse();
    }

    @Test
    final void zeroRetriesMeansTheFirstFailureIsFinal() throws Exception {
        long id = create(message("M-1").maxRetries(0));
        claim(id);
        assertThat(fail(id, "boom", Duration.ZERO)).isEqualTo(FailOutcome.DEAD);
    }

    @Test
    final void permanentFailureIsDeadAtOnce() throws Exception {
        long id = create(message("M-1").maxRetries(10));
        claim(id);
        assertThat(failPermanently(id, "bad payload")).isEqualTo(FailOutcome.DEAD);
        assertThat(stored("M-1").status()).isEqualTo(MessageStatus.DEAD);
        assertThat(stored("M-1").retryCount()).isEqualTo(1);
    }

    @Test
    final void failureOfAnEventThatIsNotProcessingChangesNothing() throws Exception {
        long id = create(message("M-1"));
        MessageRecord before = stored("M-1");
        assertThat(fail(id, "x", Duration.ofSeconds(1))).isEqualTo(FailOutcome.NOT_PROCESSING);
        assertThat(failPermanently(id, "x")).isEqualTo(FailOutcome.NOT_PROCESSING);
        assertThat(stored("M-1")).isEqualTo(before);
    }

    @Test
    final void longFailureReasonIsClippedToTheColumn() throws Exception {
        long id = create(message("M-1"));
        claim(id);
        fail(id, "x".repeat(5000), Duration.ofSeconds(1));
        assertThat(stored("M-1").failReason()).hasSize(1000).endsWith("…");
    }

    @Test
    final void cancelIsAllowedOnlyFromPendingOrFailed() throws Exception {
        long pending = create(message("M-P"));
        assertThat(cancel(pending, "order closed")).isTrue();
        assertThat(stored("M-P").status()).isEqualTo(MessageStatus.CANCELLED);
        assertThat(stored("M-P").failReason()).isEqualTo("order closed");
        assertThat(claim(pending)).as("cancelled is never claimed").isFalse();

        long processing = create(message("M-R"));
        claim(processing);
        assertThat(cancel(processing, "x")).as("cancel while processing").isFalse();
        assertThat(stored("M-R").status()).isEqualTo(MessageStatus.PROCESSING);

        fail(processing, "down", Duration.ofMinutes(1));
        assertThat(cancel(processing, "given up")).as("cancel when failed").isTrue();
        clock.advance(Duration.ofHours(1));
        assertThat(claim(processing)).isFalse();
    }

    @Test
    final void concurrentClaimsOfOneEventHaveExactlyOneWinner() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 10; round++) {
                long id = create(message("RACE-" + round));
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Boolean>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    futures.add(pool.submit(() -> {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            start.await(10, TimeUnit.SECONDS);
                            boolean won = postbox.messages().claim(c, id);
                            c.commit();
                            return won;
                        }
                    }));
                }
                int winners = 0;
                for (Future<Boolean> f : futures) {
                    winners += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(winners).as("winners of round " + round).isEqualTo(1);
                assertThat(stored("RACE-" + round).version()).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
