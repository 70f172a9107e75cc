package dev.postbox.test;

import dev.postbox.common.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each failure the {@link RecordingPublisher} injects has the effect a real target's failure has on the relay, and
 * the promises hold through it: nothing lost, duplicates absorbed by the consumer's inbox, order kept.
 */
abstract class FailureInjectionContract extends KitContract {

    private static final RetryPolicy ONE_MINUTE = RetryPolicy.fixed(List.of(Duration.ofMinutes(1)));

    @Test
    final void failedSendsAreNotDeliveredAndTheEventIsPublishedOnceAfterTheBackoff() throws Exception {
        publisher.failNext(2).onDelivery(this::consume);
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE)));
        write("1", "E-1");

        RelayDriver.Report r = driver.drainAdvancingClock();

        assertThat(r.failed()).containsExactly("E-1", "E-1");
        assertThat(r.published()).containsExactly("E-1");
        assertThat(r.clockAdvanced()).isEqualTo(Duration.ofMinutes(2));
        publisher.assertPublishedTimes("E-1", 1);
        assertThat(queryLong("SELECT retry_count FROM " + postbox.tables().outbox() + " WHERE event_no = ?", "E-1"))
                .isEqualTo(2);
        checker().assertAll();
    }

    @Test
    final void failWhenFailsOnlyTheMatchingEventsUntilHealed() throws Exception {
        publisher.failWhen(e -> e.aggregateId().equals("2"));
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE)));
        write("1", "A-1");
        write("2", "B-1");

        RelayDriver.Report r = driver.drain();
        assertThat(r.published()).containsExactly("A-1");
        assertThat(r.failed()).containsExactly("B-1");
        publisher.assertNotPublished("B-1");

        publisher.heal();
        assertThat(driver.drainAdvancingClock().published()).containsExactly("B-1");
        checker().assertAll();
    }

    @Test
    final void rejectedEventsGoDeadAtOnceAndTheCheckerNamesThem() throws Exception {
        publisher.rejectWhen(e -> e.eventNo().equals("E-2"));
        RelayDriver driver = driver();
        write("1", "E-1");
        write("2", "E-2");

        RelayDriver.Report r = driver.drainAdvancingClock();

        assertThat(r.dead()).containsExactly("E-2");
        assertThat(status("E-2")).isEqualTo("DEAD");
        assertThatThrownBy(() -> checker().assertEveryEventPublished())
                .isInstanceOf(AssertionError.class)
                .hasMessage("Postbox invariant broken: every committed event published: 1 offender(s): E-2 is DEAD ("
                        + RecordingPublisher.INJECTED_REJECTION + ")");
    }

    @Test
    final void aLostAcknowledgementDeliversTwiceAndTheInboxRunsTheEffectOnce() throws Exception {
        publisher.loseAckNext(1).onDelivery(this::consume);
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE)));
        write("1", "E-1");

        RelayDriver.Report r = driver.drainAdvancingClock();

        assertThat(r.failed()).containsExactly("E-1");
        assertThat(r.published()).containsExactly("E-1");
        publisher.assertPublishedTimes("E-1", 2);
        assertThat(queryLong("SELECT COUNT(*) FROM app_effect WHERE event_no = ?", "E-1")).isEqualTo(1);
        checker().withConsumer("consumer").withEffects("app_effect rows", EFFECTS).assertAll();
    }

    @Test
    final void aCrashBetweenPublishAndRecordRepublishesAfterTheLeaseAndTheInboxRunsTheEffectOnce() throws Exception {
        publisher.crashAfterPublishNext(1).onDelivery(this::consume);
        // one event per batch: the crash leaves only E-1 leased (a batch's followers would wait for the lease too)
        RelayDriver driver = driver(b -> b.relay(r -> r.leaseDuration(Duration.ofSeconds(30)).batchSize(1)));
        String crashedRelay = driver.relay().instanceId();
        write("1", "E-1", "E-2");

        RelayDriver.Report crash = driver.runOnce();
        assertThat(crash.crashed()).containsExactly("E-1");
        assertThat(crash.published()).isEmpty();
        assertThat(status("E-1")).isEqualTo("PUBLISHING");
        assertThat(driver.relay().instanceId()).isNotEqualTo(crashedRelay);
        assertThat(driver.drain().published()).as("nothing moves while the dead relay's lease lasts").isEmpty();

        RelayDriver.Report after = driver.drainAdvancingClock();

        assertThat(after.takenOver()).containsExactly("E-1");
        assertThat(after.published()).containsExactly("E-1", "E-2");
        assertThat(after.clockAdvanced()).isEqualTo(Duration.ofSeconds(30));
        publisher.assertPublishedTimes("E-1", 2);
        publisher.assertPublishedTimes("E-2", 1);
        publisher.assertInOrderPerAggregate();
        assertThat(queryLong("SELECT lease_expiries FROM " + postbox.tables().outbox() + " WHERE event_no = ?", "E-1"))
                .isEqualTo(1);
        checker().withConsumer("consumer").withEffects("app_effect rows", EFFECTS).assertAll();
    }

    @Test
    final void aSendSlowerThanTheSendTimeoutFailsYetArrivesAndIsPublishedAgain() throws Exception {
        publisher.latency(Duration.ofMillis(600)).onDelivery(this::consume);
        RelayDriver driver = driver(b -> b.relay(r -> r.sendTimeout(Duration.ofMillis(100)).retryPolicy(ONE_MINUTE)));
        write("1", "E-1");

        RelayDriver.Report timedOut = driver.runOnce();
        assertThat(timedOut.failed()).containsExactly("E-1");
        publisher.awaitDeliveries(1, Duration.ofSeconds(30)); // the slow send still arrives
        publisher.assertPublishedTimes("E-1", 1);

        publisher.heal();
        assertThat(driver.drainAdvancingClock().published()).containsExactly("E-1");
        publisher.assertPublishedTimes("E-1", 2);
        checker().withConsumer("consumer").withEffects("app_effect rows", EFFECTS).assertAll();
    }

    @Test
    final void aFailedHeadHoldsItsAggregateBackAndOrderIsKept() throws Exception {
        publisher.failNext(1);
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE)));
        write("1", "E-1", "E-2", "E-3");
        write("2", "F-1");

        assertThat(driver.drain().published()).containsExactly("F-1");
        publisher.assertNotPublished("E-1", "E-2", "E-3");

        assertThat(driver.drainAdvancingClock().published()).containsExactly("E-1", "E-2", "E-3");
        publisher.assertInOrderPerAggregate();
        checker().assertAll();
    }

    private InvariantChecker checker() {
        return InvariantChecker.of(postbox, ds).withDeliveries(publisher);
    }
}
