package dev.postbox.test;

import dev.postbox.common.RetryPolicy;
import dev.postbox.message.MessageEvent;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The driver runs the relay and worker to the end on the test's thread, and never for ever. */
abstract class RelayDriverContract extends KitContract {

    private static final RetryPolicy ONE_MINUTE = RetryPolicy.fixed(List.of(Duration.ofMinutes(1)));

    @Test
    final void drainPublishesEverythingDueAndLeavesRetriesInTheFutureWaiting() throws Exception {
        publisher.failWhen(e -> e.eventNo().equals("B-1"));
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE).batchSize(2)));
        write("1", "A-1", "A-2", "A-3");
        write("2", "B-1");

        RelayDriver.Report r = driver.drain();

        assertThat(r.published()).containsExactly("A-1", "A-2", "A-3");
        assertThat(r.failed()).containsExactly("B-1");
        assertThat(r.clockAdvanced()).isZero();
        assertThat(clock.instant()).isEqualTo(START);
        assertThat(status("B-1")).isEqualTo("FAILED");
    }

    @Test
    final void drainAdvancingClockGoesOnUntilTheRetriesAreUsedUp() throws Exception {
        publisher.failWhen(e -> true);
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(ONE_MINUTE)));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, event("1", "E-1").maxRetries(2).build());
            c.commit();
        }

        RelayDriver.Report r = driver.drainAdvancingClock();

        assertThat(r.failed()).containsExactly("E-1", "E-1");
        assertThat(r.dead()).containsExactly("E-1");
        assertThat(r.clockAdvanced()).isEqualTo(Duration.ofMinutes(2));
        publisher.assertNotPublished("E-1");
    }

    @Test
    final void anEventThatNeverSettlesStopsTheDrainAtItsCycleLimit() throws Exception {
        publisher.failWhen(e -> true);
        RelayDriver driver = driver(b -> b.maxCycles(20).relay(r -> r.retryPolicy(ONE_MINUTE)));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().write(c, event("1", "E-1").maxRetries(1000).build());
            c.commit();
        }

        assertThatThrownBy(driver::drainAdvancingClock)
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("RelayDriver: still busy after maxCycles=20 cycles (cycles=20, published=[]")
                .hasMessageContaining("never settles");
    }

    @Test
    final void drainAdvancingClockNeedsTheClock() {
        RelayDriver driver = closeLater(RelayDriver.builder(postbox, ds, publisher).build());

        assertThatThrownBy(driver::drainAdvancingClock).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("clock: ");
    }

    @Test
    final void theWorkerIsDrivenWithTheRelay() throws Exception {
        List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
        RelayDriver driver = driver(b -> b.worker(w -> w.handler("PAY", e -> {
            if (handled.add(e.eventNo()) && handled.size() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }).retryPolicy(ONE_MINUTE)));
        write("1", "E-1");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().create(c, MessageEvent.builder().eventNo("M-1").eventType("PAY").biz("ORDER", "1")
                    .payload("{}").build());
            c.commit();
        }

        RelayDriver.Report r = driver.drainAdvancingClock();

        assertThat(r.published()).containsExactly("E-1");
        assertThat(r.messagesFailed()).containsExactly("M-1");
        assertThat(r.messagesSucceeded()).containsExactly("M-1");
        assertThat(r.clockAdvanced()).isEqualTo(Duration.ofMinutes(1));
        assertThat(handled).containsExactly("M-1", "M-1");
    }
}
