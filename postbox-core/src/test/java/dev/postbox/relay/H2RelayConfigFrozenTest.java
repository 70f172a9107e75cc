package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.ErrorClassifier;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RelayBuilder#build()} freezes the relay's settings: changing every setting of the builder
 * afterwards (the collections it was given too) changes neither the built relay's configuration nor
 * what it does.
 */
class H2RelayConfigFrozenTest extends DatabaseContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    private final RetryPolicy hourly = RetryPolicy.fixed(List.of(Duration.ofHours(1)));
    private final RetryPolicy daily = RetryPolicy.fixed(List.of(Duration.ofDays(1)));
    private final ErrorClassifier classifier = e -> ErrorClassifier.Decision.DEAD;

    /** A failed() call a listener saw: which listener, the event and its next retry. */
    private record Seen(String listener, String eventNo, Instant nextRetry) {
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    private RelayListener listener(String name) {
        return new RelayListener() {
            @Override
            public void failed(OutboxRecord event, String reason, Instant nextRetry) {
                seen.add(new Seen(name, event.eventNo(), nextRetry));
            }
        };
    }

    @Test
    void changingEverySettingAfterBuildChangesNothingOfTheBuiltRelay() {
        Publisher publisher = records -> List.of();
        Set<String> topics = new LinkedHashSet<>(List.of("free", "loose"));
        Map<String, RetryPolicy> perType = new HashMap<>(Map.of("ORDER_CHANGED", hourly));
        RelayListener first = listener("first");
        RelayBuilder builder = postbox.relay(publisher).instanceId("frozen-1").batchSize(40)
                .leaseDuration(Duration.ofSeconds(6)).sendTimeout(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(20), Duration.ofMillis(400)).poolSize(3).inFlightBatches(3)
                .shutdownTimeout(Duration.ofSeconds(4)).ordered(true).unorderedTopics(topics)
                .retryPolicy(daily).retryPolicy("ORDER_CHANGED", hourly).errorClassifier(classifier)
                .listener(first).listenForNotifications(false).asyncCommit(false).maxLeaseExpiries(7)
                .maxClockSkew(Duration.ofMillis(900)).clockSkewCheck(true).heartbeatInterval(Duration.ofSeconds(7));
        try (Relay relay = builder.build()) {
            RelayConfig expected = new RelayConfig(publisher, "frozen-1", 40, Duration.ofSeconds(6),
                    Duration.ofSeconds(3), Duration.ofMillis(20), Duration.ofMillis(400), 3, 3, Duration.ofSeconds(4),
                    true, Set.of("free", "loose"), daily, perType, classifier, first, null, false, false, 7,
                    Duration.ofMillis(900), true, Duration.ofSeconds(7));
            assertThat(relay.config()).isEqualTo(expected);

            topics.add("added-to-the-callers-set");
            builder.instanceId("frozen-2").batchSize(1).leaseDuration(Duration.ofSeconds(60))
                    .sendTimeout(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1), Duration.ofSeconds(9))
                    .poolSize(9).inFlightBatches(1).shutdownTimeout(Duration.ofSeconds(99)).ordered(false)
                    .unorderedTopics(Set.of("other")).retryPolicy(hourly).retryPolicy("ORDER_CHANGED", daily)
                    .retryPolicy("NEW_TYPE", daily).errorClassifier(ErrorClassifier.DEFAULT)
                    .listener(listener("second")).dataSource(ds).listenForNotifications(true).asyncCommit(true)
                    .maxLeaseExpiries(1).maxClockSkew(Duration.ofSeconds(5)).clockSkewCheck(false)
                    .heartbeatInterval(Duration.ofSeconds(1));

            assertThat(relay.config()).isEqualTo(expected);
            assertThat(relay.instanceId()).isEqualTo("frozen-1");
            assertThat(relay.config().unorderedTopics()).containsExactly("free", "loose");
            assertThatThrownBy(() -> relay.config().unorderedTopics().add("x"))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> relay.config().retryPolicies().put("x", hourly))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void aRelayBuiltBeforeTheBuilderChangedRunsWithWhatItWasBuiltWith() throws Exception {
        for (int i = 0; i < 3; i++) { // one aggregate, an unordered topic: one wave of three
            OutboxEvent e = OutboxEvent.builder().eventNo("F-" + i).aggregate("ORDER", "A").eventType("ORDER_CHANGED")
                    .channel("MQ").topic("free").payload("{}").build();
            inTx(c -> postbox.outbox().write(c, e));
        }
        List<Integer> calls = new CopyOnWriteArrayList<>();
        Publisher failing = records -> {
            calls.add(records.size());
            List<java.util.concurrent.CompletionStage<PublishResult>> out = new ArrayList<>();
            records.forEach(r -> out.add(java.util.concurrent.CompletableFuture.completedFuture(PublishResult.retry("down"))));
            return out;
        };
        RelayBuilder builder = postbox.relay(failing).instanceId("frozen-run").batchSize(500).clockSkewCheck(false)
                .ordered(true).unorderedTopics(Set.of("free")).retryPolicy("ORDER_CHANGED", hourly)
                .listener(listener("first"));
        try (Relay relay = builder.build()) {
            builder.batchSize(1).unorderedTopics(Set.of()).retryPolicy("ORDER_CHANGED", daily).retryPolicy(daily)
                    .listener(listener("second")).instanceId("changed");

            Cycle cycle = relay.runOnce();

            assertThat(cycle.claimed()).as("the batch size it was built with").isEqualTo(3);
            assertThat(cycle.failed()).isEqualTo(3);
            assertThat(calls).as("the unordered topic it was built with: one wave").containsExactly(3);
            assertThat(seen).as("the listener and retry policy it was built with").containsExactlyInAnyOrder(
                    new Seen("first", "F-0", START.plus(Duration.ofHours(1))),
                    new Seen("first", "F-1", START.plus(Duration.ofHours(1))),
                    new Seen("first", "F-2", START.plus(Duration.ofHours(1))));
            assertThat(queryString("SELECT MIN(locked_by) FROM " + postbox.tables().outbox())).isNull();
        }
        assertThat(postbox.queries().outbox().byEventNo("F-0").orElseThrow().nextRetryTime())
                .isEqualTo(START.plus(Duration.ofHours(1)));
    }
}
