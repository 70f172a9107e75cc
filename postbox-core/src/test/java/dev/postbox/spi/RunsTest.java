package dev.postbox.spi;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The failure rule of one call's outcomes, per aggregate. */
class RunsTest {

    private static final Instant CREATED = Instant.parse("2026-03-08T10:00:00Z");

    private static OutboxRecord event(long id, String aggregateId) {
        return new OutboxRecord(id, "E-" + id, "ORDER", aggregateId, "ORDER_CHANGED", 1, "order-service", "MQ",
                "order.event", null, "{}", Map.of(), OutboxStatus.PUBLISHING, 0, 5, null, "relay-1", CREATED, CREATED,
                null, null, null, null, 1, CREATED, CREATED);
    }

    private static CompletableFuture<PublishResult> done(PublishResult r) {
        return CompletableFuture.completedFuture(r);
    }

    private static PublishResult now(CompletionStage<PublishResult> stage) {
        return stage.toCompletableFuture().getNow(null);
    }

    @Test
    void outcomesPassThroughWhileEveryEarlierEventOfTheAggregateWasPublished() {
        List<OutboxRecord> records = List.of(event(1, "A"), event(2, "B"), event(3, "A"));
        PublishResult dead = PublishResult.dead("too large");
        List<CompletionStage<PublishResult>> out = Runs.stopAfterFailure(records,
                List.of(done(PublishResult.published()), done(dead), done(PublishResult.published())));
        assertThat(out).extracting(RunsTest::now).containsExactly(PublishResult.published(), dead, PublishResult.published());
    }

    @Test
    void everythingBehindAFailureOfItsAggregateIsReportedNotPublishedOtherAggregatesUnaffected() {
        List<OutboxRecord> records = List.of(event(1, "A"), event(2, "A"), event(3, "B"), event(4, "A"));
        List<CompletionStage<PublishResult>> out = Runs.stopAfterFailure(records, List.of(
                done(PublishResult.retry("nacked")), done(PublishResult.published()), done(PublishResult.published()),
                CompletableFuture.failedFuture(new IllegalStateException("lost"))));
        assertThat(now(out.get(0)).reason()).isEqualTo("nacked");
        assertThat(now(out.get(1)).kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(now(out.get(1)).reason()).contains("E-1");
        assertThat(now(out.get(2))).isEqualTo(PublishResult.published());
        assertThat(now(out.get(3)).kind()).as("an exception behind a failure is a plain not-published").isEqualTo(PublishResult.Kind.RETRY);
        assertThat(now(out.get(3)).reason()).contains("E-2");
    }

    @Test
    void anExceptionalEarlierOutcomeStopsTheRunAndALaterOutcomeWaitsForBoth() {
        CompletableFuture<PublishResult> first = new CompletableFuture<>();
        CompletableFuture<PublishResult> second = new CompletableFuture<>();
        List<CompletionStage<PublishResult>> out = Runs.stopAfterFailure(List.of(event(1, "A"), event(2, "A")),
                List.of(first, second));
        second.complete(PublishResult.published());
        assertThat(out.get(1).toCompletableFuture()).as("not known before the earlier outcome").isNotDone();
        first.completeExceptionally(new IllegalStateException("connection lost"));
        assertThat(now(out.get(1)).kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(out.get(0).toCompletableFuture()).isCompletedExceptionally();
    }

    @Test
    void listsOfDifferentSizesAreRefused() {
        assertThatThrownBy(() -> Runs.stopAfterFailure(List.of(event(1, "A")), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 and 0");
    }
}
