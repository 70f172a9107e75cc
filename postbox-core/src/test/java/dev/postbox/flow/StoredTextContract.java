package dev.postbox.flow;

import dev.postbox.common.RetryPolicy;
import dev.postbox.compensation.CompensationRecord;
import dev.postbox.compensation.CompensationResult;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.message.FailOutcome;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;
import dev.postbox.message.MessageWorker;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.outbox.WriteResult;
import dev.postbox.relay.Relay;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Text Postbox itself stores (failure reasons from exceptions and response bodies, last_error, cancel
 * reasons) and times it computes (retry times) never break the recording: a NUL, a control character or
 * half an emoji is replaced, a retry time past what the column holds is stored as its latest time, and
 * the event moves on FAILED then DEAD as usual.
 */
public abstract class StoredTextContract extends DatabaseContract {

    /** What a webhook answering 503 with a binary body, or an exception message, may carry. */
    private static final String NASTY = "503 body:\0bin\u0001ary \uD83D cut \u001b[31m red\tand\nlines";
    /** {@link #NASTY} as stored. */
    private static final String STORED = "503 body:\uFFFDbin\uFFFDary \uFFFD cut \uFFFD[31m red\tand\nlines";

    private static Publisher answering(Function<OutboxRecord, CompletableFuture<PublishResult>> outcome) {
        return records -> records.stream().map(r -> (java.util.concurrent.CompletionStage<PublishResult>) outcome.apply(r)).toList();
    }

    private void writeEvent(String eventNo) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", eventNo)
                .eventType("ORDER_CREATED").channel("MQ").topic("order.event").payload("{}").maxRetries(1).build()));
    }

    private OutboxRecord outbox(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
    }

    @Test
    final void aPublisherFailingWithANulInItsReasonMakesTheEventFailedThenDead() throws Exception {
        writeEvent("E-1");
        Publisher publisher = answering(r -> CompletableFuture.completedFuture(PublishResult.retry(NASTY)));
        try (Relay relay = postbox.relay(publisher).instanceId("relay-1")
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1)))).build()) {
            assertThat(relay.runOnce().failed()).isEqualTo(1);
            OutboxRecord failed = outbox("E-1");
            assertThat(failed.status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(failed.retryCount()).isEqualTo(1);
            assertThat(failed.failReason()).isEqualTo(STORED);
            clock.advance(Duration.ofMinutes(1));
            relay.runOnce();
            OutboxRecord dead = outbox("E-1");
            assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
            assertThat(dead.failReason()).endsWith(STORED).doesNotContain("\0");
            clock.advance(Duration.ofHours(1));
            assertThat(relay.runOnce().claimed()).as("a DEAD event is not published again").isZero();
        }
    }

    @Test
    final void aPublisherStageFailingWithANulInTheExceptionMessageIsRecorded() throws Exception {
        writeEvent("E-1");
        Publisher publisher = answering(r -> CompletableFuture.failedFuture(new IllegalStateException(NASTY)));
        try (Relay relay = postbox.relay(publisher).instanceId("relay-1")
                .retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1)))).build()) {
            relay.runOnce();
            OutboxRecord failed = outbox("E-1");
            assertThat(failed.status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(failed.failReason()).contains(STORED).doesNotContain("\0");
        }
    }

    @Test
    final void aRetryTimePastWhatTheColumnHoldsIsStoredAsItsLatestTime() throws Exception {
        writeEvent("E-1");
        Duration tenThousandYears = Duration.ofDays(3_660_000);
        Publisher publisher = answering(r -> CompletableFuture.completedFuture(PublishResult.retry("busy")));
        try (Relay relay = postbox.relay(publisher).instanceId("relay-1")
                .retryPolicy(RetryPolicy.fixed(List.of(tenThousandYears))).build()) {
            assertThat(relay.runOnce().failed()).isEqualTo(1);
            OutboxRecord failed = outbox("E-1");
            assertThat(failed.status()).as("recorded, not re-published forever").isEqualTo(OutboxStatus.FAILED);
            assertThat(failed.nextRetryTime()).isEqualTo(postbox.dialect().storableTime(START.plus(tenThousandYears)));
            assertThat(relay.runOnce().claimed()).isZero();
        }
        if (db.kind().equals("mariadb")) {
            assertThat(outbox("E-1").nextRetryTime()).isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
        }
    }

    private long createMessage(String eventNo) throws Exception {
        WriteResult r = inTx(c -> postbox.messages().create(c, MessageEvent.builder().eventNo(eventNo).eventType("SEND_SMS")
                .biz("ORDER", "O-1").payload("{}").maxRetries(1).build()));
        return r.id();
    }

    private MessageRecord message(String eventNo) {
        return postbox.queries().messages().byEventNo(eventNo).orElseThrow();
    }

    @Test
    final void aHandlerThrowingWithANulMakesTheMessageEventFailed() throws Exception {
        createMessage("M-1");
        try (MessageWorker w = postbox.worker().instanceId("w1").retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1))))
                .handler("SEND_SMS", e -> {
                    throw new IllegalStateException(NASTY);
                }).build()) {
            assertThat(w.runOnce().retried()).isEqualTo(1);
            MessageRecord failed = message("M-1");
            assertThat(failed.status()).isEqualTo(MessageStatus.FAILED);
            assertThat(failed.failReason()).isEqualTo("java.lang.IllegalStateException: " + STORED);
            clock.advance(Duration.ofMinutes(1));
            assertThat(w.runOnce().dead()).isEqualTo(1);
            assertThat(message("M-1").failReason()).endsWith(STORED);
        }
    }

    @Test
    final void failAndCancelWithANulReasonKeepTheCallersTransaction() throws Exception {
        long first = createMessage("M-1");
        long second = createMessage("M-2");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-before");
            assertThat(postbox.messages().claim(c, first)).isTrue();
            assertThat(postbox.messages().fail(c, first, NASTY, Duration.ofSeconds(Long.MAX_VALUE)))
                    .isEqualTo(FailOutcome.RETRY_SCHEDULED);
            assertThat(postbox.messages().cancel(c, second, NASTY)).isTrue();
            insertOrder(c, "O-after");
            c.commit();
        }
        assertThat(count("app_order")).isEqualTo(2);
        MessageRecord failed = message("M-1");
        assertThat(failed.status()).isEqualTo(MessageStatus.FAILED);
        assertThat(failed.failReason()).isEqualTo(STORED);
        assertThat(failed.nextRetryTime()).as("Duration.ofSeconds(Long.MAX_VALUE): as late as the column goes")
                .isEqualTo(postbox.dialect().latestTime());
        MessageRecord cancelled = message("M-2");
        assertThat(cancelled.status()).isEqualTo(MessageStatus.CANCELLED);
        assertThat(cancelled.failReason()).isEqualTo(STORED);
    }

    @Test
    final void aCompensationFailingWithANulIsRecordedFailedWithItsError() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "O-before");
            CompensationResult<Object> r = postbox.compensations().once(c, "ORDER", "O-1", "TIMEOUT_CANCEL", x -> {
                insertOrder(x, "O-undone");
                throw new IllegalStateException(NASTY);
            });
            assertThat(r.outcome()).isEqualTo(CompensationResult.Outcome.FAILED);
            insertOrder(c, "O-after");
            c.commit();
        }
        assertThat(count("app_order")).as("the action's row is undone, the caller's rows commit").isEqualTo(2);
        CompensationRecord stored = postbox.compensations().find("ORDER", "O-1", "TIMEOUT_CANCEL").orElseThrow();
        assertThat(stored.status()).isEqualTo(CompensationStatus.FAILED);
        assertThat(stored.lastError()).isEqualTo("java.lang.IllegalStateException: " + STORED);
    }
}
