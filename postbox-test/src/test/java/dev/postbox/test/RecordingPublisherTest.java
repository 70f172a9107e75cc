package dev.postbox.test;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spi.PublishResult;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The publisher's outcomes and assertions on their own (what it answers the relay is pure logic). */
class RecordingPublisherTest {

    private final RecordingPublisher publisher = new RecordingPublisher();

    @Test
    void injectionsAnswerInOrderAndOnlyDeliveredEventsAreRecorded() {
        publisher.failNext(1).rejectWhen(e -> e.eventNo().equals("E-3")).loseAckNext(1);

        List<PublishResult> results = publish(record(1, "E-1", "1"), record(2, "E-2", "2"), record(3, "E-3", "3"),
                record(4, "E-4", "4"));

        assertThat(results).extracting(PublishResult::kind).containsExactly(PublishResult.Kind.RETRY,
                PublishResult.Kind.RETRY, PublishResult.Kind.DEAD, PublishResult.Kind.PUBLISHED);
        assertThat(results.get(0).reason()).isEqualTo(RecordingPublisher.INJECTED_FAILURE);
        assertThat(results.get(1).reason()).isEqualTo(RecordingPublisher.LOST_ACK);
        assertThat(publisher.published()).containsExactly("E-2", "E-4");
    }

    @Test
    void aConsumerThatThrowsFailsTheSendAndRecordsNothing() {
        publisher.onDelivery(d -> {
            throw new IllegalStateException("consumer down");
        });

        PublishResult result = publish(record(1, "E-1", "1")).get(0);

        assertThat(result.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(result.reason()).contains("consumer down");
        assertThat(publisher.deliveries()).isEmpty();
    }

    @Test
    void aCrashWithoutADriverFailsTheSendNamingWhatIsMissing() {
        publisher.crashAfterPublishNext(1);

        CompletionStage<PublishResult> stage = publisher.publish(List.of(record(1, "E-1", "1"))).get(0);

        assertThatThrownBy(() -> stage.toCompletableFuture().join())
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("crashAfterPublish needs a relay built by a RelayDriver");
    }

    @Test
    void assertionsNameWhatIsMissingAndWhatWasDelivered() {
        publish(record(1, "E-1", "1"));
        publish(record(1, "E-1", "1"));

        publisher.assertPublished("E-1");
        publisher.assertPublishedTimes("E-1", 2);
        publisher.assertNotPublished("E-2");
        publisher.assertHeader("E-1", "tenant", "t1");
        assertThatThrownBy(() -> publisher.assertPublished("E-1", "E-2"))
                .hasMessage("expected published but never delivered: [E-2]; delivered: [E-1 (2x)]");
        assertThatThrownBy(() -> publisher.assertNotPublished("E-1"))
                .hasMessage("expected not published but delivered: [E-1 (2x)]; delivered: [E-1 (2x)]");
        assertThatThrownBy(() -> publisher.assertPublishedTimes("E-1", 1))
                .hasMessage("expected E-1 delivered 1 time(s) but it was delivered 2 time(s); delivered: [E-1 (2x)]");
        assertThatThrownBy(() -> publisher.assertHeader("E-1", "tenant", "t2"))
                .hasMessage("expected E-1 with header tenant=t2 but it was tenant=t1; its headers: {tenant=t1}");
    }

    @Test
    void orderPerAggregateAllowsDuplicatesButNotOvertaking() {
        publish(record(1, "A-1", "a"));
        publish(record(1, "A-1", "a"));
        publish(record(5, "B-1", "b"));
        publish(record(2, "A-2", "a"));
        publisher.assertInOrderPerAggregate();

        publish(record(0, "A-0", "a"));
        assertThatThrownBy(publisher::assertInOrderPerAggregate)
                .hasMessageStartingWith("order per aggregate broken: [ORDER/a: A-0 (id 0) first delivered after A-2 (id 2)]");
    }

    @Test
    void resetForgetsDeliveriesInjectionsAndConsumers() {
        publisher.failNext(5).onDelivery(d -> {
            throw new IllegalStateException("old consumer");
        });
        publisher.reset();

        assertThat(publish(record(1, "E-1", "1")).get(0).kind()).isEqualTo(PublishResult.Kind.PUBLISHED);
        assertThat(publisher.published()).containsExactly("E-1");
    }

    private List<PublishResult> publish(OutboxRecord... records) {
        return publisher.publish(List.of(records)).stream().map(s -> s.toCompletableFuture().join()).toList();
    }

    private static OutboxRecord record(long id, String eventNo, String aggregateId) {
        Instant t = Instant.parse("2030-01-01T00:00:00Z");
        return new OutboxRecord(id, eventNo, "ORDER", aggregateId, "ORDER_EVENT", 1, "kit-test", "MQ", "order.event", null,
                "{}", Map.of("tenant", "t1"), OutboxStatus.PUBLISHING, 0, 5, null, "relay", t, t, null, null, null, null, 1,
                t, t);
    }
}
