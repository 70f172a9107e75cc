package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.micrometer.PostboxMetrics;
import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class PostboxMetricsLifecycleTest {

    private TestDatabase db;

    @BeforeEach
    void open() {
        db = TestDatabase.h2();
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void backlogThreadRunsWithTheContextAndStopsWhenItCloses() {
        ObservedApp.runner(db.dataSource()).run(context -> {
            assertThat(context.getBean(BacklogMonitor.class).isRunning()).isTrue();
            ObservedApp.await("the backlog thread runs", () -> !backlogThreads().isEmpty(), () -> backlogThreads());
            assertThat(backlogThreads()).allMatch(Thread::isDaemon);
        });
        assertThat(backlogThreads()).as("no backlog thread once the context is closed").isEmpty();
    }

    @Test
    void disabledMetricsRegisterNothingAndStartNoThread() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.metrics.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(PostboxMetrics.class).doesNotHaveBean(BacklogMonitor.class);
            assertThat(context.getBean(SimpleMeterRegistry.class).find("postbox.outbox.backlog").meters()).isEmpty();
            assertThat(backlogThreads()).isEmpty();
        });
    }

    @Test
    void nonPositiveRefreshIntervalFailsStartUpNamingTheProperty() {
        ObservedApp.runner(db.dataSource()).withPropertyValues("postbox.metrics.refresh-interval=0s").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("postbox.metrics.refresh-interval").hasMessageContaining("positive"));
    }

    @Test
    void hooksNeverThrowAndCountNothingBeforeBinding() {
        BacklogMonitor monitor = new BacklogMonitor(Postbox.builder(db.dataSource()).build().queries(),
                Duration.ofSeconds(1)); // not started: nothing read yet
        PostboxMetrics metrics = new PostboxMetrics(monitor, List.of("MQ"));
        assertThatCode(() -> metrics.published(null, Duration.ofMillis(1))).doesNotThrowAnyException();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        assertThatCode(() -> {
            metrics.published(null, Duration.ofMillis(1));
            metrics.failed((OutboxRecord) null, "x", Instant.now());
            metrics.batch("r", 1, 1, 0, 0, null);
        }).doesNotThrowAnyException();
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ").counters()).hasSize(3)
                .allMatch(c -> c.count() == 0);
        assertThat(registry.find("postbox.outbox.backlog").gauges()).hasSize(4).allMatch(g -> Double.isNaN(g.value()));
    }

    @Test
    void leaseExpiriesAreCountedApartFromPublishOutcomes() {
        BacklogMonitor monitor = new BacklogMonitor(Postbox.builder(db.dataSource()).build().queries(), Duration.ofSeconds(1));
        PostboxMetrics metrics = new PostboxMetrics(monitor, List.of("MQ"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        assertThat(registry.find("postbox.relay.lease.expiries").counter().count()).isZero();
        metrics.leaseExpired(null, 1);
        metrics.leaseExpired(null, 2);
        assertThat(registry.find("postbox.relay.lease.expiries").counter().count()).isEqualTo(2);
        assertThat(registry.find("postbox.publish.outcomes").tags("channel", "MQ").counters()).allMatch(c -> c.count() == 0);
    }

    private static List<Thread> backlogThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(BacklogMonitor.THREAD_NAME)).toList();
    }
}
