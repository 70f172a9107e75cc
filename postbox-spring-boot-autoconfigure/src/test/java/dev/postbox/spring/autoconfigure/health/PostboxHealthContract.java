package dev.postbox.spring.autoconfigure.health;

import dev.postbox.relay.EventBus;
import dev.postbox.spring.autoconfigure.BootLine;
import dev.postbox.spring.autoconfigure.BootLine.Health;
import dev.postbox.spring.autoconfigure.BootLine.Status;
import dev.postbox.spring.autoconfigure.metrics.ObservedApp;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;

import java.util.Map;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The postbox health component, read through the Boot line's own health API ({@link BootLine}), on a real database; bound per database. */
abstract class PostboxHealthContract {

    protected TestDatabase db;

    protected abstract TestDatabase database();

    @BeforeEach
    void open() {
        db = database();
    }

    @AfterEach
    void close() {
        db.close();
    }

    static Health health(ApplicationContext context) {
        return BootLine.health(context, PostboxHealthAutoConfiguration.BEAN_NAME);
    }

    @Test
    final void upWithCountsThresholdsAndRelayStateWhenNothingWaits() {
        // metrics off: the indicator reads the backlog itself
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.metrics.enabled=false").run(context -> {
            Health h = health(context);
            assertThat(h.getStatus()).isEqualTo(Status.UP);
            assertThat(h.getDetails()).containsEntry("pending", 0L).containsEntry("publishing", 0L)
                    .containsEntry("failed", 0L).containsEntry("dead", 0L).containsEntry("oldestPendingAge", "PT0S")
                    .containsEntry("thresholds", Map.of("maxOldestPendingAge", "PT5M", "maxDead", 0L))
                    .containsEntry("relayRunning", true).doesNotContainKey("reason");
        });
    }

    @Test
    final void downWhenTheRelayStoppedWhileTheApplicationRuns() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.metrics.enabled=false").run(context -> {
            assertThat(health(context).getDetails()).containsEntry("relayRunning", true).containsEntry("relayClockTrusted", true);
            context.getBean(dev.postbox.spring.autoconfigure.RelayLifecycle.class).relay().close(); // as if its thread died
            Health h = health(context);
            assertThat(h.getStatus()).isEqualTo(Status.DOWN);
            assertThat(h.getDetails()).containsEntry("relayRunning", false);
            assertThat((String) h.getDetails().get("reason")).contains("the relay is not running");
        });
    }

    @Test
    final void downWhenTheOldestPendingEventIsOlderThanTheMaximum() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.relay.enabled=false",
                "postbox.health.max-oldest-pending-age=1s").run(context -> {
            ObservedApp.write(context, "E-1", EventBus.CHANNEL);
            await("the health is DOWN", () -> health(context).getStatus().equals(Status.DOWN), () -> health(context));
            Health h = health(context);
            assertThat(h.getDetails()).containsEntry("pending", 1L).doesNotContainKey("relayRunning");
            assertThat((String) h.getDetails().get("reason")).contains("oldest unfinished event has waited");
        });
    }

    @Test
    final void downWhenMoreEventsAreDeadThanAllowed() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
            ObservedApp.write(context, "E-1", "NOWHERE");
            await("the health is DOWN", () -> health(context).getStatus().equals(Status.DOWN), () -> health(context));
            Health h = health(context);
            assertThat(h.getDetails()).containsEntry("dead", 1L).containsEntry("pending", 0L);
            assertThat((String) h.getDetails().get("reason")).contains("1 DEAD event(s) (outbox 1, message events 0), more than 0");
        });
    }

    @Test
    final void theHealthDoesNotLagTheDatabaseByTheMetricsRefreshInterval() {
        // the metrics' monitor reads once an hour: the health must not show its stale read
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.metrics.refresh-interval=1h").run(context -> {
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
            ObservedApp.write(context, "E-1", "NOWHERE");
            await("the health is DOWN", () -> health(context).getStatus().equals(Status.DOWN), () -> health(context));
            assertThat(health(context).getDetails()).containsEntry("dead", 1L);
        });
    }

    @Test
    final void upWhileDeadEventsStayWithinTheMaximum() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.health.max-dead=1").run(context -> {
            ObservedApp.write(context, "E-1", "NOWHERE");
            await("the dead event shows", () -> Long.valueOf(1).equals(health(context).getDetails().get("dead")),
                    () -> health(context));
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
        });
    }

    static class FailingHandler {
        @dev.postbox.spring.PostboxMessageHandler("BAD")
        void bad(dev.postbox.message.MessageRecord r) {
            throw new dev.postbox.spi.NonRetryableException("handler refuses");
        }
    }

    @Test
    final void downWhenAMessageEventIsDeadToo() {
        ObservedApp.runner(db.dataSource()).withUserConfiguration(FailingHandler.class).run(context -> {
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
            ObservedApp.message(context, "M-1", "BAD");
            await("the health is DOWN", () -> health(context).getStatus().equals(Status.DOWN), () -> health(context));
            Health h = health(context);
            assertThat(h.getDetails()).containsEntry("dead", 0L);
            assertThat(h.getDetails().get("messages")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("dead", 1L).containsEntry("pending", 0L);
            assertThat((String) h.getDetails().get("reason")).contains("message events 1");
        });
    }

    @Test
    final void badThresholdFailsStartUpNamingTheProperty() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.health.max-dead=-1").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("postbox.health.max-dead"));
    }

    @Test
    final void noIndicatorWhenDisabled() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.health.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(PostboxHealthAutoConfiguration.BEAN_NAME));
        ObservedApp.runner(db.dataSource()).withPropertyValues("management.health.postbox.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(PostboxHealthAutoConfiguration.BEAN_NAME));
        ObservedApp.runner(db.dataSource()).withPropertyValues("management.health.defaults.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(PostboxHealthAutoConfiguration.BEAN_NAME));
        ObservedApp.runner(db.dataSource()).withPropertyValues("management.health.defaults.enabled=false",
                "management.health.postbox.enabled=true").run(context ->
                assertThat(context).hasNotFailed().hasBean(PostboxHealthAutoConfiguration.BEAN_NAME));
    }
}
