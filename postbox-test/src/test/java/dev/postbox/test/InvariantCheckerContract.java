package dev.postbox.test;

import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checker passes a healthy run and names every offender of every broken invariant. */
abstract class InvariantCheckerContract extends KitContract {

    @Test
    final void aHealthyRunPassesEveryCheck() throws Exception {
        publisher.failNext(1).loseAckNext(1).onDelivery(this::consume);
        write("1", "E-1", "E-2");
        write("2", "F-1");
        driver().drainAdvancingClock();

        InvariantChecker checker = InvariantChecker.of(postbox, ds).withDeliveries(publisher).withConsumer("consumer")
                .withEffects("app_effect rows", EFFECTS);
        checker.assertAll();
        checker.assertEveryEventPublished();
        checker.assertNoRolledBackEventPublished();
        checker.assertOrderPerAggregate();
        checker.assertInboxEffectsOnce("consumer");
        checker.assertEffectsOnce("app_effect rows", EFFECTS);
    }

    @Test
    final void anEventNotPublishedIsNamedWithItsStatus() throws Exception {
        publisher.failWhen(e -> e.eventNo().equals("E-2"));
        write("1", "E-1");
        write("2", "E-2");
        driver().drain();

        assertThatThrownBy(() -> InvariantChecker.of(postbox, ds).assertEveryEventPublished())
                .isInstanceOf(AssertionError.class)
                .hasMessage("Postbox invariant broken: every committed event published: 1 offender(s): E-2 is FAILED ("
                        + RecordingPublisher.INJECTED_FAILURE + ")");
    }

    @Test
    final void anEventRecordedPublishedThatNeverReachedTheTargetIsNamed() throws Exception {
        write("1", "E-1");
        driver().drain();
        RecordingPublisher other = new RecordingPublisher();

        assertThatThrownBy(() -> InvariantChecker.of(postbox, ds).withDeliveries(other).assertEveryEventPublished())
                .hasMessageContaining("E-1 is PUBLISHED but never reached the target");
    }

    @Test
    final void aDeliveredEventThatWasNeverCommittedIsNamed() throws Exception {
        write("1", "E-1");
        driver().drain();
        publisher.publish(List.of(ghost("GHOST-1"))); // what a relay publishing uncommitted rows would have sent

        assertThatThrownBy(() -> InvariantChecker.of(postbox, ds).withDeliveries(publisher).assertNoRolledBackEventPublished())
                .hasMessage("Postbox invariant broken: no rolled-back event published: 1 offender(s): GHOST-1 was"
                        + " delivered but is no committed outbox event (rolled back?)");
    }

    @Test
    final void anUnorderedRelayThatOvertakesIsCaught() throws Exception {
        publisher.failNext(1);
        write("9", "O-1", "O-2");
        driver(b -> b.relay(r -> r.ordered(false).retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1))))))
                .drainAdvancingClock();

        assertThatThrownBy(() -> publisher.assertInOrderPerAggregate())
                .hasMessageStartingWith("order per aggregate broken: [ORDER/9: O-1 (id ");
        assertThatThrownBy(() -> InvariantChecker.of(postbox, ds).withDeliveries(publisher).assertOrderPerAggregate())
                .hasMessage("Postbox invariant broken: order per aggregate kept: 1 offender(s): ORDER/9: O-2 was first"
                        + " delivered before the earlier O-1");
    }

    @Test
    final void aLostOrDoubledEffectIsNamedAndAssertAllListsEveryBrokenInvariant() throws Exception {
        publisher.onDelivery(this::consume);
        write("1", "E-1");
        write("2", "E-2");
        driver().drain();
        exec("DELETE FROM " + postbox.tables().consumeLog() + " WHERE event_no = 'E-1'");
        exec("INSERT INTO app_effect (id, event_no) VALUES (100, 'E-2')");
        write("3", "E-3"); // committed, never published

        assertThatThrownBy(() -> InvariantChecker.of(postbox, ds).withDeliveries(publisher).withConsumer("consumer")
                .withEffects("app_effect rows", EFFECTS).assertAll())
                .hasMessage("""
                        Postbox invariants broken:
                         - every committed event published: 1 offender(s): E-3 is PENDING
                         - each inbox effect once (consumer consumer): 1 offender(s): E-1 delivered 1x has 0 consume-log rows
                         - each effect once (app_effect rows): 1 offender(s): E-2 delivered 1x has 2 effects""");
    }

    /** An event that was never committed, as a relay would see it. */
    private static OutboxRecord ghost(String eventNo) {
        return new OutboxRecord(999_999L, eventNo, "ORDER", "1", "ORDER_EVENT", 1, "kit-test", "MQ", "order.event", null,
                "{}", Map.of(), OutboxStatus.PUBLISHING, 0, 5, null, "relay", START, START, null, null, null, null, 1,
                START, START);
    }
}
