package dev.postbox.relay;

import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.Await;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay when what it calls misbehaves (publishers, subscribers, retry policies, listeners), when it
 * is closed mid-batch, when it dies, when its clock is wrong (issue 11, part F).
 */
public abstract class RelayRobustnessContract extends DatabaseContract {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Publisher to(Receiver receiver) {
        return RelayContract.to(receiver);
    }

    private static Publisher failing(java.util.function.Function<OutboxRecord, PublishResult> outcome, Receiver receiver) {
        return RelayContract.failing(outcome, receiver);
    }

    /** A relay on the suite's settable clock, which is far from the database's on purpose: no skew check. */
    private RelayBuilder relay(Publisher publisher, String id) {
        return postbox.relay(publisher).instanceId(id).poolSize(2).clockSkewCheck(false);
    }

    private void writeEvents(int n, int aggregates, String topic) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboxEvent.builder().eventNo(topic + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("MQ").topic(topic).payload("{\"seq\":" + i + "}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, batch));
    }

    private static void drain(Relay relay) {
        for (int i = 0; i < 1000; i++) {
            if (relay.runOnce().claimed() == 0) {
                return;
            }
        }
        throw new AssertionError("relay did not drain");
    }

    private long countStatus(OutboxStatus status) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    private OutboxRecord event(String eventNo) {
        return postbox.queries().outbox().byEventNo(eventNo).orElseThrow();
    }

    private void write(String eventNo, String aggregateId, String channel, String topic) throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregateId)
                .eventType("ORDER_CHANGED").channel(channel).topic(topic).payload("{}").build()));
    }

    private long leased() throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = 1 OR locked_by IS NOT NULL");
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    // F2

    @Test
    final void anErrorFromASubscriberOrAListenerIsRecordedAndTheRelayThreadGoesOn() throws Exception {
        write("E-1", "1", EventBus.CHANNEL, "order.event");
        write("E-2", "2", EventBus.CHANNEL, "order.event");
        Receiver receiver = new Receiver();
        EventBus bus = new EventBus().subscribe("order.event", r -> {
            if (r.eventNo().equals("E-1")) {
                throw new AssertionError("subscriber assertion");
            }
            receiver.accept(r);
        });
        RelayListener throwing = new RelayListener() {
            @Override
            public void published(OutboxRecord event, Duration latency) {
                throw new NoClassDefFoundError("dev/example/Missing");
            }
        };
        try (Relay relay = relay(Routes.of(EventBus.CHANNEL, bus), "relay-err").listener(throwing)
                .pollInterval(Duration.ofMillis(5), Duration.ofMillis(20)).start()) {
            Await.until("E-1 failed and E-2 published", WAIT,
                    () -> event("E-1").status() == OutboxStatus.FAILED && event("E-2").status() == OutboxStatus.PUBLISHED);
            OutboxRecord failed = event("E-1");
            assertThat(failed.failReason()).contains("AssertionError").contains("subscriber assertion");
            assertThat(failed.retryCount()).isEqualTo(1);
            assertThat(failed.lockedBy()).isNull();
            assertThat(relay.isRunning()).as("the relay thread survived both errors").isTrue();
            write("E-3", "3", EventBus.CHANNEL, "order.event");
            relay.wakeUp();
            Await.until("E-3 published by the same thread", WAIT, () -> event("E-3").status() == OutboxStatus.PUBLISHED);
            assertThat(relay.isRunning()).isTrue();
        }
        assertThat(receiver.distinct()).isEqualTo(2);
        assertThat(leased()).isZero();
    }

    @Test
    final void isRunningIsFalseBeforeStartAndAfterClose() throws Exception {
        Relay relay = relay(to(new Receiver()), "relay-state").build();
        assertThat(relay.isRunning()).isFalse();
        relay.start();
        assertThat(relay.isRunning()).isTrue();
        relay.close();
        assertThat(relay.isRunning()).isFalse();
        assertThat(threadAlive("postbox-relay-relay-state")).isFalse();
    }

    // F1

    @Test
    final void aMisbehavingPublisherFailsOnlyTheEventsConcernedAndLeavesNothingLeased() throws Exception {
        String[] kinds = {"ok-1", "cancelled", "null-stage", "null-result", "failed-stage", "ok-2"};
        for (int i = 0; i < kinds.length; i++) {
            write(kinds[i], "A" + i, "MQ", "t");
        }
        Receiver receiver = new Receiver();
        Publisher odd = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                switch (r.eventNo()) {
                    case "cancelled" -> {
                        CompletableFuture<PublishResult> f = new CompletableFuture<>();
                        f.cancel(false);
                        out.add(f);
                    }
                    case "null-stage" -> out.add(null);
                    case "null-result" -> out.add(CompletableFuture.completedFuture(null));
                    case "failed-stage" -> out.add(CompletableFuture.failedFuture(new StackOverflowError()));
                    default -> {
                        receiver.accept(r);
                        out.add(CompletableFuture.completedFuture(PublishResult.published()));
                    }
                }
            }
            return out;
        };
        try (Relay relay = relay(odd, "relay-odd").build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).isEqualTo(6);
            assertThat(cycle.published()).isEqualTo(2);
            assertThat(cycle.failed()).isEqualTo(4);
        }
        assertThat(leased()).as("nothing left PUBLISHING until the lease expires").isZero();
        assertThat(event("ok-1").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(event("ok-2").status()).isEqualTo(OutboxStatus.PUBLISHED);
        for (String k : List.of("cancelled", "null-stage", "null-result", "failed-stage")) {
            assertThat(event(k).status()).as(k).isEqualTo(OutboxStatus.FAILED);
            assertThat(event(k).retryCount()).as(k).isEqualTo(1);
        }
        assertThat(event("cancelled").failReason()).contains("cancelled");
        assertThat(event("failed-stage").failReason()).contains("StackOverflowError");

        clock.advance(RetryPolicy.DEFAULT_CAP);
        try (Relay relay = relay(to(receiver), "relay-good").build()) {
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(6);
        assertThat(receiver.times("ok-1")).as("accepted by the broker: never sent again").isEqualTo(1);
        assertThat(receiver.times("ok-2")).isEqualTo(1);
    }

    @Test
    final void aPublisherThatThrowsOrAnswersTheWrongNumberOfOutcomesFailsItsCallRecorded() throws Exception {
        List<Publisher> bad = List.of(
                records -> {
                    throw new IllegalStateException("client closed");
                },
                records -> {
                    throw new NoClassDefFoundError("org/example/Codec");
                },
                records -> null,
                records -> List.of(CompletableFuture.completedFuture(PublishResult.published())));
        for (int i = 0; i < bad.size(); i++) {
            write("B-" + i + "-a", "B" + i + "a", "MQ", "t");
            write("B-" + i + "-b", "B" + i + "b", "MQ", "t");
            try (Relay relay = relay(bad.get(i), "relay-bad-" + i).build()) {
                Cycle cycle = relay.runOnce();
                assertThat(cycle.claimed()).as("publisher %d", i).isEqualTo(2);
                assertThat(cycle.failed()).as("publisher %d", i).isEqualTo(2);
            }
            assertThat(leased()).as("publisher %d", i).isZero();
            assertThat(event("B-" + i + "-a").status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(event("B-" + i + "-b").retryCount()).isEqualTo(1);
        }
        assertThat(event("B-1-a").failReason()).contains("NoClassDefFoundError");
        assertThat(event("B-3-a").failReason()).contains("1 outcomes for 2 events");
    }

    @Test
    final void aRetryPolicyThatThrowsFallsBackToTheDefaultPolicy() throws Exception {
        write("R-1", "1", "MQ", "t");
        write("R-2", "2", "MQ", "t");
        Publisher down = failing(r -> PublishResult.retry("503"), new Receiver());
        try (Relay relay = relay(down, "relay-policy").retryPolicy(failures -> {
            throw new ArithmeticException("policy bug");
        }).retryPolicy("OTHER", failures -> null).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.failed()).isEqualTo(2);
        }
        assertThat(leased()).isZero();
        OutboxRecord r = event("R-1");
        assertThat(r.status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(r.failReason()).isEqualTo("503");
        // the default policy's first delay: 2 s with equal jitter, so 1..2 s
        assertThat(Duration.between(clock.instant(), r.nextRetryTime())).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    // F3

    @Test
    final void eachWaveHasItsOwnSendDeadline() throws Exception {
        writeEvents(3, 1, "order.event"); // one aggregate: three waves of one event
        Receiver receiver = new Receiver();
        Publisher slow = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                out.add(CompletableFuture.supplyAsync(() -> {
                    receiver.accept(r);
                    return PublishResult.published();
                }, CompletableFuture.delayedExecutor(450, TimeUnit.MILLISECONDS)));
            }
            return out;
        };
        try (Relay relay = relay(slow, "relay-waves").sendTimeout(Duration.ofSeconds(1)).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.published()).as("the third wave starts after 0.9 s of a 1 s timeout").isEqualTo(3);
            assertThat(cycle.failed()).isZero();
        }
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(3);
        assertThat(receiver.duplicates()).isZero();
    }

    @Test
    final void aPublisherWhoseCallBlocksPastTheSendTimeoutIsATimedOutAttemptNotAStuckRelay() throws Exception {
        write("BLOCK-1", "B1", "MQ", "order.event");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        Publisher blocking = records -> { // e.g. a client reconnecting on the caller's thread
            if (calls.incrementAndGet() == 1) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return records.stream().map(r -> (CompletionStage<PublishResult>) CompletableFuture.completedFuture(
                    PublishResult.published())).toList();
        };
        try (Relay relay = relay(blocking, "relay-blocked").sendTimeout(Duration.ofMillis(500)).build()) {
            long started = System.nanoTime();
            Cycle cycle = relay.runOnce();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the relay waited for the deadline only")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(cycle.failed()).isEqualTo(1);
            OutboxRecord r = event("BLOCK-1");
            assertThat(r.status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(r.retryCount()).as("a timed-out attempt").isEqualTo(1);
            assertThat(r.failReason()).contains("did not return");
            release.countDown();
            clock.advance(Duration.ofHours(1)); // its retry is due
            Await.until("the retry is published", WAIT, () -> relay.runOnce().published() == 1);
        }
        assertThat(event("BLOCK-1").status()).isEqualTo(OutboxStatus.PUBLISHED);
    }

    // F4

    @Test
    final void closeWaitsForTheBatchInFlightAndHandsNoFurtherWaveToThePublisher() throws Exception {
        writeEvents(5, 1, "order.event"); // one aggregate: five waves
        AtomicInteger calls = new AtomicInteger();
        Receiver receiver = new Receiver();
        Publisher deaf = records -> { // slow, and deaf to interrupts
            calls.incrementAndGet();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
            while (System.nanoTime() < until) {
                LockSupport.parkNanos(until - System.nanoTime());
            }
            Thread.interrupted();
            return to(receiver).publish(records);
        };
        Relay relay = relay(deaf, "relay-close").shutdownTimeout(Duration.ofMillis(100)).start();
        Await.until("the first wave is being sent", WAIT, () -> calls.get() == 1);
        relay.close();
        assertThat(threadAlive("postbox-relay-relay-close")).as("close() returned only after the thread was done").isFalse();
        assertThat(calls.get()).as("no wave handed over after close began").isEqualTo(1);
        assertThat(event("order.event-0").status()).isEqualTo(OutboxStatus.PUBLISHED);
        for (int i = 1; i < 5; i++) {
            OutboxRecord r = event("order.event-" + i);
            assertThat(r.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(r.retryCount()).isZero();
            assertThat(r.lockedBy()).isNull();
        }
        assertThat(receiver.distinct()).isEqualTo(1);
    }

    // F9

    @Test
    final void aLiveRelayRenewsItsLeasesSoAShortLeaseOutlastsASlowSend() throws Exception {
        write("S-1", "1", "MQ", "t");
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        Receiver receiver = new Receiver();
        Publisher slow = records -> records.stream().<CompletionStage<PublishResult>>map(r -> CompletableFuture.supplyAsync(() -> {
            receiver.accept(r);
            return PublishResult.published();
        }, CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS))).toList();
        AtomicReference<Cycle> first = new AtomicReference<>();
        try (Relay a = live.relay(slow).instanceId("relay-slow").leaseDuration(Duration.ofMillis(600))
                .sendTimeout(Duration.ofSeconds(5)).build();
             Relay b = live.relay(to(receiver)).instanceId("relay-other").leaseDuration(Duration.ofMillis(600))
                     .pollInterval(Duration.ofMillis(10), Duration.ofMillis(50)).build()) {
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> first.set(a.runOnce()));
            Await.until("S-1 leased by relay-slow", WAIT, () -> "relay-slow".equals(event("S-1").lockedBy()));
            b.start();
            running.get(30, TimeUnit.SECONDS);
            assertThat(a.keeperRenewals()).as("renewed while the send was slow").isGreaterThanOrEqualTo(2);
        }
        assertThat(first.get().published()).isEqualTo(1);
        OutboxRecord r = event("S-1");
        assertThat(r.status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(r.leaseExpiries()).as("never taken over").isZero();
        assertThat(receiver.times("S-1")).as("sent once").isEqualTo(1);
    }

    @Test
    final void aRelayWhoseLeasesWereTakenOverSendsNoFurtherWave() throws Exception {
        writeEvents(3, 1, "order.event"); // one aggregate: three waves
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        AtomicInteger calls = new AtomicInteger();
        java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
        Publisher slow = records -> {
            calls.incrementAndGet();
            sending.countDown();
            return records.stream().<CompletionStage<PublishResult>>map(r -> CompletableFuture.supplyAsync(
                    PublishResult::published, CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS))).toList();
        };
        java.util.List<String> fencedHeard = new java.util.concurrent.CopyOnWriteArrayList<>();
        RelayListener hears = new RelayListener() {
            @Override
            public void fenced(String relayId, int count) {
                fencedHeard.add(relayId + ":" + count);
            }
        };
        try (Relay relay = live.relay(slow).instanceId("relay-robbed").leaseDuration(Duration.ofMillis(600))
                .listener(hears).build()) {
            CompletableFuture<Cycle> cycle = CompletableFuture.supplyAsync(relay::runOnce);
            assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
            // another relay took the batch over (as after a long pause of this one)
            exec("UPDATE " + postbox.tables().outbox() + " SET locked_by = 'thief', version = version + 1"
                    + " WHERE locked_by = 'relay-robbed'");
            Cycle done = cycle.get(30, TimeUnit.SECONDS);
            assertThat(calls.get()).as("no wave after the renewal found the leases gone").isEqualTo(1);
            assertThat(done.fenced()).as("its late outcome is fenced").isEqualTo(1);
            assertThat(fencedHeard).as("the listener is told (postbox_relay_fenced_total)").containsExactly("relay-robbed:1");
        }
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE locked_by = 'thief'"))
                .as("the new owner's leases untouched").isEqualTo(3);
    }

    // F10

    @Test
    final void takeoversNeverUseUpRetriesAndAnEventTakenOverTooOftenGoesDead() throws Exception {
        write("P-1", "1", "MQ", "t"); // crashes every relay
        write("P-2", "2", "MQ", "t"); // its relays crashed a few times, then one publishes it
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, Set.of());
        for (int crash = 0; crash <= RelayDefaults.MAX_LEASE_EXPIRIES; crash++) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                List<OutboxRecord> claimed = claimer.claim(c, 10, "crashing-" + crash, clock.instant(),
                        clock.instant().plus(RelayDefaults.LEASE));
                assertThat(claimed).hasSize(crash < 5 ? 2 : 1);
                c.commit();
            }
            clock.advance(RelayDefaults.LEASE.plusMillis(1));
            if (crash == 4) {
                Receiver receiver = new Receiver();
                try (Relay relay = relay(failing(r -> r.eventNo().equals("P-2") ? PublishResult.published()
                        : PublishResult.retry("never reached"), receiver), "relay-p2").build()) {
                    // P-1 is sent too (5 takeovers, under the bound) and fails: one real failed attempt
                    Cycle cycle = relay.runOnce();
                    assertThat(cycle.takenOver()).isEqualTo(2);
                }
                assertThat(event("P-2").status()).isEqualTo(OutboxStatus.PUBLISHED);
                assertThat(event("P-2").retryCount()).as("five crashes are no failed attempt").isZero();
                assertThat(event("P-2").leaseExpiries()).isEqualTo(5);
                clock.advance(RetryPolicy.DEFAULT_CAP);
            }
        }
        List<String> takeovers = new ArrayList<>();
        List<String> dead = new ArrayList<>();
        try (Relay relay = relay(to(new Receiver()), "relay-last").listener(new RelayListener() {
            @Override
            public void leaseExpired(OutboxRecord event, int leaseExpiries) {
                takeovers.add(event.eventNo() + ":" + leaseExpiries);
            }

            @Override
            public void dead(OutboxRecord event, String reason) {
                dead.add(event.eventNo());
            }
        }).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.dead()).isEqualTo(1);
            assertThat(cycle.takenOver()).isEqualTo(1);
        }
        OutboxRecord poison = event("P-1");
        assertThat(poison.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(poison.retryCount()).as("only the one real failure").isEqualTo(1);
        assertThat(poison.leaseExpiries()).isEqualTo(RelayDefaults.MAX_LEASE_EXPIRIES + 1);
        assertThat(poison.failReason()).startsWith("taken over " + (RelayDefaults.MAX_LEASE_EXPIRIES + 1) + " times");
        assertThat(takeovers).containsExactly("P-1:" + (RelayDefaults.MAX_LEASE_EXPIRIES + 1));
        assertThat(dead).containsExactly("P-1");
    }

    @Test
    final void onlyAClaimOfAnExpiredLeaseCountsAsATakeover() throws Exception {
        write("M-1", "1", "MQ", "t");
        // a row reset to PENDING by hand after a takeover still carries the takeover's reason
        exec("UPDATE " + postbox.tables().outbox() + " SET lease_expiries = 1, fail_reason = '"
                + ClaimSql.LEASE_EXPIRED + "' WHERE event_no = 'M-1'");
        List<String> takeovers = new ArrayList<>();
        try (Relay relay = relay(to(new Receiver()), "relay-count").listener(new RelayListener() {
            @Override
            public void leaseExpired(OutboxRecord event, int leaseExpiries) {
                takeovers.add(event.eventNo());
            }
        }).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.published()).isEqualTo(1);
            assertThat(cycle.takenOver()).isZero();
        }
        assertThat(takeovers).isEmpty();
        assertThat(event("M-1").leaseExpiries()).isEqualTo(1);
    }

    // F5

    @Test
    final void aRelayWhoseClockIsAheadBeyondTheBoundTakesOverNoLease() throws Exception {
        write("K-1", "1", "MQ", "t");
        Postbox ahead = newPostbox(b -> b.clock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(3))));
        Postbox right = newPostbox(b -> b.clock(Clock.systemUTC()));
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, Set.of());
        Instant until = Instant.now().plusMillis(1500);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(claimer.claim(c, 10, "live-relay", Instant.now(), until)).hasSize(1);
            c.commit();
        }
        List<Boolean> verdicts = new ArrayList<>();
        Receiver receiver = new Receiver();
        try (Relay skewed = ahead.relay(to(receiver)).instanceId("relay-ahead").listener(new RelayListener() {
            @Override
            public void clockSkew(String relayId, Duration offset, Duration bound, boolean trusted) {
                verdicts.add(trusted);
            }
        }).build()) {
            assertThat(skewed.runOnce().claimed()).as("expired by its clock, live by the database's").isZero();
            assertThat(skewed.clockTrusted()).isFalse();
            assertThat(skewed.clockOffset()).isLessThan(Duration.ofMillis(-2500));
            assertThat(verdicts).containsExactly(false);
        }
        try (Relay relay = right.relay(to(receiver)).instanceId("relay-right").build()) {
            Await.until("the lease expired", WAIT, () -> Instant.now().isAfter(until.plusMillis(50)));
            assertThat(relay.runOnce().takenOver()).isEqualTo(1);
            assertThat(relay.clockTrusted()).isTrue();
        }
        assertThat(event("K-1").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(receiver.times("K-1")).isEqualTo(1);
    }

    @Test
    final void aRelayTwoSecondsAheadDoesNotTakeOverALiveLeaseAndTheEventEndsPublished() throws Exception {
        write("L-1", "1", "MQ", "t");
        Postbox live = newPostbox(b -> b.clock(Clock.systemUTC()));
        Postbox ahead = newPostbox(b -> b.clock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(2))));
        Receiver receiver = new Receiver();
        Publisher slow = records -> records.stream().<CompletionStage<PublishResult>>map(r -> CompletableFuture.supplyAsync(() -> {
            receiver.accept(r);
            return PublishResult.published();
        }, CompletableFuture.delayedExecutor(9500, TimeUnit.MILLISECONDS))).toList();
        AtomicReference<Cycle> cycle = new AtomicReference<>();
        try (Relay a = live.relay(slow).instanceId("relay-on-time").leaseDuration(Duration.ofSeconds(11))
                .sendTimeout(Duration.ofSeconds(10)).build();
             Relay b = ahead.relay(to(receiver)).instanceId("relay-2s-ahead").leaseDuration(Duration.ofSeconds(11))
                     .sendTimeout(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20), Duration.ofMillis(100)).build()) {
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> cycle.set(a.runOnce()));
            Await.until("L-1 leased", WAIT, () -> "relay-on-time".equals(event("L-1").lockedBy()));
            b.start();
            running.get(60, TimeUnit.SECONDS);
        }
        assertThat(cycle.get().published()).isEqualTo(1);
        OutboxRecord r = event("L-1");
        assertThat(r.status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(r.leaseExpiries()).isZero();
        assertThat(receiver.times("L-1")).isEqualTo(1);
    }

    // F8

    @Test
    final void anEventBusTopicWithoutSubscriberIsAFailureAPersonCanSee() throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo("T-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel(EventBus.CHANNEL).topic("order.evnet").payload("{}").maxRetries(1).build()));
        EventBus bus = new EventBus().subscribe("order.event", r -> { });
        try (Relay relay = relay(Routes.of(EventBus.CHANNEL, bus), "relay-typo").build()) {
            assertThat(relay.runOnce().published()).isZero();
            assertThat(event("T-1").status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(event("T-1").failReason()).isEqualTo("no subscriber for topic 'order.evnet'");
            clock.advance(RetryPolicy.DEFAULT_CAP);
            relay.runOnce();
        }
        OutboxRecord r = event("T-1");
        assertThat(r.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(r.failReason()).isEqualTo("retries exhausted (1): no subscriber for topic 'order.evnet'");
    }

    @Test
    final void anEventBusThatDeadLettersAnEventWithoutSubscriberDoesSoAtOnceAndOnlyForThatTopic() throws Exception {
        inTx(c -> {
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("T-2").aggregate("ORDER", "2")
                    .eventType("ORDER_CHANGED").channel(EventBus.CHANNEL).topic("order.evnet").payload("{}").build());
            postbox.outbox().write(c, OutboxEvent.builder().eventNo("T-3").aggregate("ORDER", "3")
                    .eventType("ORDER_CHANGED").channel(EventBus.CHANNEL).topic("order.event").payload("{}").build());
            return null;
        });
        java.util.List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        EventBus bus = new EventBus(EventBus.NoSubscriber.DEAD).subscribe("order.event", r -> received.add(r.eventNo()));
        try (Relay relay = relay(Routes.of(EventBus.CHANNEL, bus), "relay-dead").build()) {
            relay.runOnce();
        }
        assertThat(event("T-2").status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(event("T-2").failReason()).isEqualTo("no subscriber for topic 'order.evnet'");
        assertThat(event("T-3").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(received).containsExactly("T-3");
    }

    @Test
    final void anEventBusThatDiscardsPublishesAnEventWithoutSubscriberAndOneUnsubscribedLater() throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo("T-4").aggregate("ORDER", "4")
                .eventType("ORDER_CHANGED").channel(EventBus.CHANNEL).topic("order.event").payload("{}").build()));
        java.util.List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.function.Consumer<OutboxRecord> subscriber = r -> received.add(r.eventNo());
        EventBus bus = new EventBus(EventBus.NoSubscriber.DISCARD).subscribe("order.event", subscriber);
        assertThat(bus.unsubscribe("order.event", subscriber)).isTrue();
        assertThat(bus.unsubscribe("order.event", subscriber)).isFalse();
        try (Relay relay = relay(Routes.of(EventBus.CHANNEL, bus), "relay-discard").build()) {
            relay.runOnce();
        }
        assertThat(event("T-4").status()).isEqualTo(OutboxStatus.PUBLISHED);
        assertThat(received).isEmpty();
    }

    // F11

    /** The server's id of the session behind {@code c}, and the statement that ends it from another session. */
    private String[] session(Connection c) throws Exception {
        String idSql = switch (db.kind()) {
            case "postgresql" -> "SELECT pg_backend_pid()";
            case "mariadb" -> "SELECT CONNECTION_ID()";
            default -> "SELECT SESSION_ID()";
        };
        long id;
        try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery(idSql)) {
            rs.next();
            id = rs.getLong(1);
        }
        return new String[] {Long.toString(id), switch (db.kind()) {
            case "postgresql" -> "SELECT pg_terminate_backend(" + id + ")";
            case "mariadb" -> "KILL CONNECTION " + id;
            default -> "SELECT ABORT_SESSION(" + id + ")";
        }};
    }

    @Test
    final void aClaimOnAConnectionTheServerEndedReportsTheServersReasonNotTheClosedConnection() throws Exception {
        write("C-1", "1", "MQ", "t");
        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
        cfg.setDataSource(ds);
        cfg.setMaximumPoolSize(1);
        cfg.setAutoCommit(false);
        cfg.setPoolName("killed-sessions");
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(cfg)) {
            java.util.concurrent.atomic.AtomicBoolean kill = new java.util.concurrent.atomic.AtomicBoolean(true);
            // the relay's connection is ended by the server between two of its statements, as in a database crash
            javax.sql.DataSource killing = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                        Object result = method.invoke(pool, args);
                        if (method.getName().equals("getConnection") && kill.getAndSet(false)) {
                            String[] session = session((Connection) result);
                            exec(session[1]);
                            Await.until("the server ended session " + session[0], WAIT, () -> {
                                try {
                                    return queryLong(switch (db.kind()) {
                                        case "postgresql" -> "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + session[0];
                                        case "mariadb" -> "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + session[0];
                                        default -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = " + session[0];
                                    }) == 0;
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
                        }
                        return result;
                    });
            try (Relay relay = relay(to(new Receiver()), "relay-crash").dataSource(killing).build()) {
                Throwable failure = org.assertj.core.api.Assertions.catchThrowable(relay::runOnce);
                assertThat(failure).isInstanceOf(dev.postbox.common.PostboxSqlException.class);
                System.out.printf("[%s] claim on an ended session: %s%n", db.kind(), dev.postbox.internal.poll.Failures.describe(failure));
                assertThat(failure.getMessage()).as("the first cause, not the rollback's").doesNotContain("Connection is closed");
                assertThat(dev.postbox.internal.poll.Failures.describe(failure)).doesNotContain("Connection is closed");
            }
        }
        try (Relay relay = relay(to(new Receiver()), "relay-after").build()) {
            assertThat(relay.runOnce().published()).as("the failed claim left nothing leased").isEqualTo(1);
        }
    }

    // F6

    @Test
    final void aSoftDeletedUnfinishedEventDoesNotBlockItsAggregate() throws Exception {
        writeEvents(4, 1, "order.event");
        exec("UPDATE " + postbox.tables().outbox() + " SET deleted = 1 WHERE event_no IN ('order.event-0', 'order.event-2')");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-deleted").build()) {
            drain(relay);
        }
        assertThat(receiver.deliveries).extracting(OutboxRecord::eventNo).containsExactly("order.event-1", "order.event-3");
        assertThat(event("order.event-0").status()).as("a deleted row is never published").isEqualTo(OutboxStatus.PENDING);
    }
}
