package dev.postbox.test;

import dev.postbox.common.RetryPolicy;
import dev.postbox.compensation.CompensationRecord;
import dev.postbox.message.MessageEvent;
import dev.postbox.message.MessageWorker;
import dev.postbox.message.WorkerCycle;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionPolicy;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every component takes the times it writes and compares from the Postbox clock: nothing becomes due, expires or
 * ages while the {@link TestClock} stands still, and each does exactly when the clock reaches its time.
 */
abstract class ClockContract extends KitContract {

    @Test
    final void relayRetriesAFailedEventExactlyWhenTheClockReachesItsBackoff() throws Exception {
        publisher.failNext(1);
        RelayDriver driver = driver(b -> b.relay(r -> r.retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(1))))));
        write("1", "E-1");
        assertThat(outboxTime("create_time", "E-1")).isEqualTo(START);

        assertThat(driver.runOnce().failed()).containsExactly("E-1");
        assertThat(outboxTime("next_retry_time", "E-1")).isEqualTo(START.plus(Duration.ofMinutes(1)));
        assertThat(driver.runOnce().published()).isEmpty();
        clock.advance(Duration.ofMinutes(1).minusMillis(1));
        assertThat(driver.runOnce().published()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        assertThat(driver.runOnce().published()).containsExactly("E-1");
        assertThat(outboxTime("published_time", "E-1")).isEqualTo(START.plus(Duration.ofMinutes(1)));
    }

    @Test
    final void relayTakesOverACrashedLeaseExactlyWhenTheClockReachesItsEnd() throws Exception {
        publisher.crashAfterPublishNext(1);
        RelayDriver driver = driver(b -> b.relay(r -> r.leaseDuration(Duration.ofSeconds(30))));
        write("1", "E-1");

        assertThat(driver.runOnce().crashed()).containsExactly("E-1");
        assertThat(status("E-1")).isEqualTo("PUBLISHING");
        assertThat(outboxTime("lock_until", "E-1")).isEqualTo(START.plusSeconds(30));
        clock.advance(Duration.ofSeconds(30).minusMillis(1));
        assertThat(driver.runOnce().takenOver()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        RelayDriver.Report r = driver.runOnce();
        assertThat(r.takenOver()).containsExactly("E-1");
        assertThat(r.published()).containsExactly("E-1");
        publisher.assertPublishedTimes("E-1", 2);
    }

    @Test
    final void workerRetriesAFailedMessageExactlyWhenTheClockReachesItsBackoff() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        RelayDriver driver = driver(b -> b.worker(w -> w.handler("PAY", e -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("payment service down");
            }
        }).retryPolicy(RetryPolicy.fixed(List.of(Duration.ofMinutes(5))))));
        createMessage("M-1");

        assertThat(driver.runOnce().messagesFailed()).containsExactly("M-1");
        assertThat(messageTime("next_retry_time", "M-1")).isEqualTo(START.plus(Duration.ofMinutes(5)));
        clock.advance(Duration.ofMinutes(5).minusMillis(1));
        assertThat(driver.runOnce().messagesSucceeded()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        assertThat(driver.runOnce().messagesSucceeded()).containsExactly("M-1");
        assertThat(messageTime("success_time", "M-1")).isEqualTo(START.plus(Duration.ofMinutes(5)));
    }

    @Test
    final void workerRecoversAStuckMessageExactlyWhenTheClockReachesTheStuckTimeout() throws Exception {
        Duration stuck = Duration.ofMinutes(2);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // a worker that claims the event and then hangs in its handler, as one whose process froze
        MessageWorker frozen = closeLater(postbox.worker().instanceId("frozen").handler("PAY", e -> {
            entered.countDown();
            release.await();
        }).handlerTimeout(Duration.ofMinutes(1)).stuckTimeout(stuck).dataSource(ds).build());
        RelayDriver driver = driver(b -> b.worker(w -> w.handler("PAY", e -> { })
                .handlerTimeout(Duration.ofMinutes(1)).stuckTimeout(stuck)));
        createMessage("M-1");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<WorkerCycle> hanging = thread.submit(frozen::runOnce);
            assertThat(entered.await(30, TimeUnit.SECONDS)).as("the frozen worker claimed the event").isTrue();
            assertThat(messageTime("last_handle_time", "M-1")).isEqualTo(START);

            clock.advance(stuck.minusMillis(1));
            assertThat(driver.runOnce().messagesFailed()).isEmpty();
            clock.advance(Duration.ofMillis(1));
            assertThat(driver.runOnce().messagesFailed()).containsExactly("M-1");
            assertThat(queryLong("SELECT retry_count FROM " + postbox.tables().message() + " WHERE event_no = ?", "M-1"))
                    .isEqualTo(1);

            release.countDown();
            assertThat(hanging.get(30, TimeUnit.SECONDS).fenced()).as("the frozen worker can no longer record").isEqualTo(1);
        } finally {
            release.countDown();
            thread.shutdownNow();
        }
    }

    @Test
    final void compensationLogTimesComeFromTheClock() throws Exception {
        compensate(c -> {
            throw new IllegalStateException("inventory down");
        });
        CompensationRecord first = postbox.compensations().find("ORDER", "1", "TIMEOUT_CANCEL").orElseThrow();
        assertThat(first.createTime()).isEqualTo(START);
        assertThat(first.updateTime()).isEqualTo(START);

        clock.advance(Duration.ofHours(1));
        compensate(c -> null);
        CompensationRecord done = postbox.compensations().find("ORDER", "1", "TIMEOUT_CANCEL").orElseThrow();
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.createTime()).isEqualTo(START);
        assertThat(done.updateTime()).isEqualTo(START.plus(Duration.ofHours(1)));
    }

    @Test
    final void retentionAgesPublishedEventsByTheClock() throws Exception {
        write("1", "E-1");
        driver().drain();
        Retention retention = closeLater(postbox.retention(RetentionPolicy.builder()
                .outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7)).build()).build());

        clock.advance(Duration.ofDays(7));
        retention.runOnce();
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox())).isEqualTo(1);

        clock.advance(Duration.ofMillis(1));
        retention.runOnce();
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox())).isZero();
    }

    @Test
    final void inboxCleanupAgesTheConsumeLogByTheClock() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.inbox().once(c, "consumer", "E-1", () -> { });
            c.commit();
        }
        assertThat(time("SELECT create_time FROM " + postbox.tables().consumeLog() + " WHERE event_no = ?", "E-1"))
                .isEqualTo(START);

        clock.advance(Duration.ofDays(14));
        assertThat(postbox.inbox().cleanup(Duration.ofDays(14), 100)).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(postbox.inbox().cleanup(Duration.ofDays(14), 100)).isEqualTo(1);
    }

    private void createMessage(String eventNo) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.messages().create(c, MessageEvent.builder().eventNo(eventNo).eventType("PAY").biz("ORDER", "1")
                    .payload("{}").build());
            c.commit();
        }
    }

    private java.time.Instant messageTime(String column, String eventNo) throws SQLException {
        return time("SELECT " + column + " FROM " + postbox.tables().message() + " WHERE event_no = ?", eventNo);
    }

    private void compensate(dev.postbox.compensation.Compensations.Action<Object> action) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            postbox.compensations().once(c, "ORDER", "1", "TIMEOUT_CANCEL", action);
            c.commit();
        }
    }
}
