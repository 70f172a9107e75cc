package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.message.MessageRecord;
import dev.postbox.relay.EventBus;
import dev.postbox.spring.PostboxMessageHandler;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.await;
import static dev.postbox.spring.autoconfigure.metrics.ObservedApp.write;
import static org.assertj.core.api.Assertions.assertThat;

/** The postbox.* meters on a real database, with the relay and worker the starter runs; bound per database. */
abstract class PostboxMetricsContract {

    private TestDatabase db;

    protected abstract TestDatabase database();

    @BeforeEach
    void open() {
        db = database();
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    final void publishedEventCountsOutcomeLatencyAndBatch() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            assertThat(registry.find("postbox.publish.outcomes").tags("outcome", "published", "channel", EventBus.CHANNEL)
                    .counter()).as("routed channels are registered at 0").isNotNull();
            context.getBean(EventBus.class).subscribe("t", r -> { }); // a topic nobody subscribes to is a failure
            write(context, "E-1", EventBus.CHANNEL);
            // the relay reports each event, then its batch: wait for the batch, the cycle's last report
            await("the event is counted published and its batch timed", () -> outcome(registry, "published",
                    EventBus.CHANNEL) == 1 && registry.find("postbox.relay.batch.duration").timer().count() >= 1,
                    () -> registry.getMetersAsString());
            Timer latency = registry.find("postbox.publish.latency").tag("channel", EventBus.CHANNEL).timer();
            assertThat(latency.count()).isEqualTo(1);
            assertThat(latency.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.find("postbox.relay.batch.size").summary().totalAmount()).isGreaterThanOrEqualTo(1);
            assertThat(registry.find("postbox.relay.batch.duration").timer().count()).isGreaterThanOrEqualTo(1);
            assertThat(outcome(registry, "failed", EventBus.CHANNEL)).isZero();
        });
    }

    @Test
    final void theStartersInboxCountsEveryUseAndPublishMetersNameTheDestination() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            assertThat(registry.find("postbox.publish.outcomes").tags("outcome", "published", "channel", EventBus.CHANNEL,
                    "destination", "event-bus").counter()).as("the bus's route names the destination").isNotNull();
            dev.postbox.spring.TransactionalInbox inbox = context.getBean(dev.postbox.spring.TransactionalInbox.class);
            org.springframework.transaction.support.TransactionTemplate tx = new org.springframework.transaction.support
                    .TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            for (int i = 0; i < 2; i++) {
                tx.executeWithoutResult(s -> inbox.once("inventory", "E-7", () -> { }));
            }
            assertThat(registry.find("postbox.inbox.deliveries").tags("consumer", "inventory", "outcome", "ran").counter()
                    .count()).isEqualTo(1.0);
            assertThat(registry.find("postbox.inbox.duplicates").tag("consumer", "inventory").counter().count())
                    .as("the Postbox bean's inbox reports to the meters").isEqualTo(1.0);
            assertThat(registry.find("postbox.relay.fenced").counter()).isNotNull();
            assertThat(registry.find("postbox.relay.instances").gauge()).isNotNull();
            assertThat(registry.find("postbox.table.rows").tag("table", "outbox").gauge()).isNotNull();
        });
    }

    @Test
    final void throwingSubscriberCountsFailedOutcome() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            context.getBean(EventBus.class).subscribe("t", r -> {
                throw new IllegalStateException("subscriber down");
            });
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            write(context, "E-1", EventBus.CHANNEL);
            await("the attempt is counted failed", () -> outcome(registry, "failed", EventBus.CHANNEL) >= 1,
                    () -> registry.getMetersAsString());
            assertThat(outcome(registry, "published", EventBus.CHANNEL)).isZero();
            assertThat(registry.find("postbox.publish.latency").tag("channel", EventBus.CHANNEL).timer().count()).isZero();
        });
    }

    @Test
    final void eventOfUnroutedChannelIsCountedDeadAndShowsInDeadGauge() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            write(context, "E-1", "NOWHERE");
            await("the event is counted dead", () -> outcome(registry, "dead", "NOWHERE") == 1,
                    () -> registry.getMetersAsString());
            await("the dead gauge shows it", () -> gauge(registry.find("postbox.outbox.dead")) == 1,
                    () -> registry.getMetersAsString());
            assertThat(gauge(registry.find("postbox.outbox.backlog").tag("status", "dead"))).isEqualTo(1);
            assertThat(gauge(registry.find("postbox.outbox.backlog").tag("status", "pending"))).isZero();
            assertThat(gauge(registry.find("postbox.outbox.oldest.age"))).as("nothing unfinished").isZero();
        });
    }

    @Test
    final void backlogGaugesShowPendingEventsWhileTheRelayIsOff() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.relay.enabled=false").run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            for (int i = 1; i <= 3; i++) {
                write(context, "E-" + i, EventBus.CHANNEL);
            }
            await("3 pending and an oldest age", () -> gauge(registry.find("postbox.outbox.backlog").tag("status", "pending")) == 3
                            && gauge(registry.find("postbox.outbox.oldest.age")) > 0,
                    () -> registry.getMetersAsString());
            assertThat(gauge(registry.find("postbox.outbox.backlog").tag("status", "publishing"))).isZero();
            assertThat(gauge(registry.find("postbox.outbox.backlog").tag("status", "failed"))).isZero();
            assertThat(gauge(registry.find("postbox.outbox.dead"))).isZero();
            assertThat(registry.find("postbox.outbox.oldest.age").timeGauge().baseTimeUnit()).isEqualTo(TimeUnit.SECONDS);
        });
    }

    @Test
    final void messageEventOutcomesAreCounted() {
        ObservedApp.runner(db.dataSource()).withUserConfiguration(Handlers.class).run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            ObservedApp.message(context, "M-1", "GOOD");
            ObservedApp.message(context, "M-2", "BAD");
            await("one succeeded and one dead", () -> messages(registry, "succeeded") == 1 && messages(registry, "dead") == 1,
                    () -> registry.getMetersAsString());
            assertThat(messages(registry, "cancelled")).isZero();
            await("the DEAD message event in the message backlog gauges",
                    () -> gauge(registry.find("postbox.message.dead")) == 1
                            && gauge(registry.find("postbox.message.backlog").tag("status", "dead")) == 1,
                    () -> registry.getMetersAsString());
            assertThat(gauge(registry.find("postbox.message.backlog").tag("status", "pending"))).isZero();
            assertThat(gauge(registry.find("postbox.message.backlog").tag("status", "processing"))).isZero();
            assertThat(gauge(registry.find("postbox.message.oldest.age"))).as("nothing unfinished").isZero();
            assertThat(gauge(registry.find("postbox.outbox.dead"))).as("the outbox has no dead event").isZero();
        });
    }

    @Test
    final void messageBacklogGaugesShowPendingMessageEventsWhileTheWorkerIsOff() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.worker.enabled=false").run(context -> {
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            ObservedApp.message(context, "M-1", "GOOD");
            ObservedApp.message(context, "M-2", "GOOD");
            await("2 pending message events and an oldest age",
                    () -> gauge(registry.find("postbox.message.backlog").tag("status", "pending")) == 2
                            && gauge(registry.find("postbox.message.oldest.age")) > 0,
                    () -> registry.getMetersAsString());
            assertThat(gauge(registry.find("postbox.outbox.backlog").tag("status", "pending"))).isZero();
        });
    }

    static class Handlers {
        @PostboxMessageHandler("GOOD")
        void good(MessageRecord r) {
        }

        @PostboxMessageHandler("BAD")
        void bad(MessageRecord r) {
            throw new IllegalStateException("handler fails");
        }
    }

    private static double outcome(MeterRegistry registry, String outcome, String channel) {
        Counter c = registry.find("postbox.publish.outcomes").tags("outcome", outcome, "channel", channel).counter();
        return c == null ? 0 : c.count();
    }

    private static double messages(MeterRegistry registry, String outcome) {
        return registry.find("postbox.message.outcomes").tag("outcome", outcome).counter().count();
    }

    private static double gauge(Search search) {
        Gauge g = search.gauge();
        return g == null ? Double.NaN : g.value();
    }
}
