package dev.postbox.relay;

import dev.postbox.common.RetryPolicy;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.PageRequest;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay against a real database: claim, publish, record, order, leases, failures. */
public abstract class RelayContract extends DatabaseContract {

    /** Writes {@code n} events round-robin over {@code aggregates} aggregates, in batches. */
    protected void writeEvents(int n, int aggregates, String topic) throws Exception {
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboxEvent.builder().eventNo(topic + "-" + i).aggregate("ORDER", "A" + (i % aggregates))
                    .eventType("ORDER_CHANGED").channel("MQ").topic(topic).payload("{\"seq\":" + i + "}").build());
            if (batch.size() == 1000 || i == n - 1) {
                List<OutboxEvent> chunk = List.copyOf(batch);
                inTx(c -> postbox.outbox().writeAll(c, chunk));
                batch.clear();
            }
        }
    }

    static Publisher to(Receiver receiver) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                receiver.accept(r);
                out.add(CompletableFuture.completedFuture(PublishResult.published()));
            }
            return out;
        };
    }

    static Publisher failing(Function<OutboxRecord, PublishResult> outcome, Receiver receiver) {
        return records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                PublishResult result = outcome.apply(r);
                if (result.kind() == PublishResult.Kind.PUBLISHED) {
                    receiver.accept(r);
                }
                out.add(CompletableFuture.completedFuture(result));
            }
            return out;
        };
    }

    /** A relay on the suite's settable clock, which is far from the database's on purpose: no skew check. */
    protected RelayBuilder relay(Publisher publisher, String id) {
        return postbox.relay(publisher).instanceId(id).batchSize(500).poolSize(2).clockSkewCheck(false);
    }

    /** Runs cycles until one claims nothing; returns the cycles that claimed something. */
    protected static List<Cycle> drain(Relay relay) {
        List<Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            Cycle c = relay.runOnce();
            if (c.claimed() == 0) {
                return cycles;
            }
            cycles.add(c);
        }
        throw new AssertionError("relay did not drain");
    }

    protected long countStatus(OutboxStatus status) throws Exception {
        return queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE publish_status = " + status.code());
    }

    @Test
    final void publishesEveryCommittedEventOnceInAggregateOrder() throws Exception {
        writeEvents(2_000, 37, "order.event");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            List<Cycle> cycles = drain(relay);
            assertThat(cycles).allMatch(c -> c.claimed() <= 500);
        }
        assertThat(receiver.distinct()).isEqualTo(2_000);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(2_000);
        OutboxRecord one = postbox.queries().outbox().byEventNo("order.event-5").orElseThrow();
        assertThat(one.publishedTime()).isEqualTo(START);
        assertThat(one.lockedBy()).isNull();
        assertThat(one.lockUntil()).isNull();
        assertThat(one.version()).isEqualTo(1);
    }

    @Test
    final void aRunOfOneAggregateIsPublishedInWavesOfOneEventPerAggregate() throws Exception {
        writeEvents(50, 5, "order.event");
        List<List<OutboxRecord>> calls = new ArrayList<>();
        Publisher spy = records -> {
            calls.add(List.copyOf(records));
            return to(new Receiver()).publish(records);
        };
        try (Relay relay = relay(spy, "relay-1").build()) {
            assertThat(drain(relay)).as("one claim takes the runs of all five aggregates").hasSize(1);
        }
        assertThat(calls).hasSize(10);
        for (int wave = 0; wave < 10; wave++) {
            assertThat(calls.get(wave)).extracting(OutboxRecord::aggregateId).doesNotHaveDuplicates().hasSize(5);
            int w = wave;
            assertThat(calls.get(wave)).extracting(OutboxRecord::eventNo)
                    .allMatch(no -> Integer.parseInt(no.substring(no.lastIndexOf('-') + 1)) / 5 == w, "wave " + w);
        }
    }

    /** {@code publisher} with {@code lane} as its order lane. */
    static Publisher laned(Publisher publisher, Function<OutboxRecord, Object> lane) {
        return new Publisher() {
            @Override
            public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
                return publisher.publish(records);
            }

            @Override
            public Object orderLane(OutboxRecord event) {
                return lane.apply(event);
            }
        };
    }

    @Test
    final void runsOnOneLaneAreHandedOverInOneCallInOrder() throws Exception {
        writeEvents(50, 5, "order.event");
        List<List<OutboxRecord>> calls = new ArrayList<>();
        Receiver receiver = new Receiver();
        Publisher spy = laned(records -> {
            calls.add(List.copyOf(records));
            return to(receiver).publish(records);
        }, r -> "one-lane");
        try (Relay relay = relay(spy, "relay-1").build()) {
            assertThat(drain(relay)).hasSize(1).allMatch(c -> c.published() == 50);
        }
        assertThat(calls).as("the whole batch in one call").hasSize(1);
        assertThat(calls.get(0)).extracting(OutboxRecord::id).isSorted().hasSize(50);
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(receiver.duplicates()).isZero();
    }

    @Test
    final void anEventOnAnotherLaneThanItsAggregatesPreviousOneWaitsForTheNextWave() throws Exception {
        String[] topics = {"t.one", "t.one", "t.two", "t.one"};
        for (int i = 0; i < topics.length; i++) {
            OutboxEvent e = OutboxEvent.builder().eventNo("lane-" + i).aggregate("ORDER", "A").eventType("ORDER_CHANGED")
                    .channel("MQ").topic(topics[i]).payload("{}").build();
            inTx(c -> postbox.outbox().write(c, e));
        }
        OutboxEvent other = OutboxEvent.builder().eventNo("lane-b").aggregate("ORDER", "B").eventType("ORDER_CHANGED")
                .channel("MQ").topic("t.two").payload("{}").build();
        inTx(c -> postbox.outbox().write(c, other));
        List<List<String>> calls = new ArrayList<>();
        Publisher spy = laned(records -> {
            calls.add(records.stream().map(OutboxRecord::eventNo).toList());
            return to(new Receiver()).publish(records);
        }, OutboxRecord::topic);
        try (Relay relay = relay(spy, "relay-1").build()) {
            assertThat(drain(relay)).hasSize(1);
        }
        assertThat(calls).containsExactly(List.of("lane-0", "lane-1", "lane-b"), List.of("lane-2"), List.of("lane-3"));
    }

    @Test
    final void aFailureInALaneHoldsTheLaterEventsOfItsAggregateWithoutCountingAnAttempt() throws Exception {
        writeEvents(40, 4, "order.event"); // aggregate A0 holds events 0, 4, 8, ..., 36
        Receiver receiver = new Receiver();
        java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.Set<String> stoppedAggregates = new java.util.HashSet<>();
        // an honest lane publisher: after a failure it reports the rest of that aggregate's run not sent
        Publisher honest = laned(records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            stoppedAggregates.clear();
            for (OutboxRecord r : records) {
                PublishResult result;
                if (stoppedAggregates.contains(r.aggregateId())) {
                    result = PublishResult.retry("not sent: an earlier event of its aggregate failed");
                } else if (r.eventNo().equals("order.event-8") && failedOnce.add(r.eventNo())) {
                    result = PublishResult.retry("leader not available");
                    stoppedAggregates.add(r.aggregateId());
                } else {
                    receiver.accept(r);
                    result = PublishResult.published();
                }
                out.add(CompletableFuture.completedFuture(result));
            }
            return out;
        }, r -> "one-lane");
        try (Relay relay = relay(honest, "relay-1").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.claimed()).isEqualTo(40);
            assertThat(first.failed()).as("only the first failure of the run is an attempt").isEqualTo(1);
            assertThat(first.published()).isEqualTo(40 - 8);
            OutboxRecord held = postbox.queries().outbox().byEventNo("order.event-12").orElseThrow();
            assertThat(held.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(held.retryCount()).as("held, not failed").isZero();
            assertThat(held.failReason()).isNull();
            assertThat(relay.runOnce().claimed()).as("A0 waits for its failed event").isZero();
            clock.advance(RetryPolicy.DEFAULT_CAP);
            assertThat(drain(relay)).hasSize(1).allMatch(c -> c.published() == 8);
        }
        assertThat(receiver.distinct()).isEqualTo(40);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
    }

    @Test
    final void anEventHeldBackUnsentFarLongerThanItsRetriesNeverCountsARetryNorGoesDead() throws Exception {
        writeEvents(12, 3, "held");
        Receiver receiver = new Receiver();
        int max = postbox.queries().outbox().byEventNo("held-0").orElseThrow().maxRetryCount();
        java.util.concurrent.atomic.AtomicBoolean paused = new java.util.concurrent.atomic.AtomicBoolean(true);
        // a destination paused (or at its in-flight bound), as postbox-server's publisher reports it
        Publisher pausable = failing(r -> paused.get()
                ? PublishResult.notSent("destination 'd' paused", Duration.ofSeconds(5)) : PublishResult.published(),
                receiver);
        try (Relay relay = relay(pausable, "relay-1").build()) {
            for (int round = 0; round < max + 5; round++) {
                relay.runOnce();
                clock.advance(Duration.ofSeconds(5));
            }
            for (int i = 0; i < 12; i++) {
                OutboxRecord r = postbox.queries().outbox().byEventNo("held-" + i).orElseThrow();
                assertThat(r.status()).as("held-" + i).isIn(OutboxStatus.FAILED, OutboxStatus.PENDING);
                assertThat(r.retryCount()).as("held-" + i + ": no retry counted").isZero();
            }
            OutboxRecord head = postbox.queries().outbox().byEventNo("held-0").orElseThrow();
            assertThat(head.status()).isEqualTo(OutboxStatus.FAILED);
            assertThat(head.failReason()).isEqualTo("destination 'd' paused");
            assertThat(receiver.distinct()).isZero();
            paused.set(false);
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(12);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(postbox.queries().outbox().byEventNo("held-11").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
    }

    @Test
    final void anEventReportedPublishedBehindAFailureOfItsAggregateInTheSameCallIsSentAgainAfterIt() throws Exception {
        writeEvents(40, 4, "order.event"); // aggregate A0 holds events 0, 4, 8, ..., 36
        Receiver receiver = new Receiver();
        java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
        // as a broker that fails one pipelined message but stores the later ones: it reports them published
        Publisher pipelined = laned(failing(r -> r.eventNo().equals("order.event-8") && failedOnce.add(r.eventNo())
                ? PublishResult.retry("rejected by the broker") : PublishResult.published(), receiver), r -> "one-lane");
        try (Relay relay = relay(pipelined, "relay-1").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.failed()).isEqualTo(1);
            assertThat(first.published()).as("A0's events after 8 are not believed").isEqualTo(40 - 8);
            assertThat(postbox.queries().outbox().byEventNo("order.event-36").orElseThrow().status())
                    .isEqualTo(OutboxStatus.PENDING);
            clock.advance(RetryPolicy.DEFAULT_CAP);
            drain(relay);
        }
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(40);
        assertThat(receiver.times("order.event-12")).as("the copy ahead of 8, then the one after it").isEqualTo(2);
        List<String> a0AfterRetry = new ArrayList<>();
        boolean retried = false;
        for (OutboxRecord r : receiver.deliveries) {
            retried |= r.eventNo().equals("order.event-8");
            if (retried && r.aggregateId().equals("A0")) {
                a0AfterRetry.add(r.eventNo());
            }
        }
        assertThat(a0AfterRetry).as("from the failed event on, the rest of A0 arrives again in order").containsExactly(
                "order.event-8", "order.event-12", "order.event-16", "order.event-20", "order.event-24",
                "order.event-28", "order.event-32", "order.event-36");
    }

    @Test
    final void fewBusyAggregatesStillFillTheBatch() throws Exception {
        writeEvents(1_000, 4, "order.event");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            List<Cycle> cycles = drain(relay);
            assertThat(cycles).hasSize(2).allMatch(c -> c.claimed() == 500 && c.published() == 500);
        }
        assertThat(receiver.distinct()).isEqualTo(1_000);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
    }

    @Test
    final void afterAQuietSpellABurstOnFewAggregatesIsTakenInRunsAgain() throws Exception {
        writeEvents(1, 1, "quiet");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            assertThat(relay.runOnce().claimed()).isEqualTo(1); // found no runs: stops looking for a while
            writeEvents(400, 2, "burst");
            Thread.sleep(150); // longer than the relay's pause between looks for runs
            assertThat(relay.runOnce().claimed()).as("runs of both aggregates").isEqualTo(400);
        }
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(receiver.distinct()).isEqualTo(401);
    }

    @Test
    final void aFailureInsideARunHoldsBackTheRestOfItsAggregateOnly() throws Exception {
        writeEvents(40, 4, "order.event"); // aggregate A0 holds events 0, 4, 8, ..., 36
        Receiver receiver = new Receiver();
        java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Publisher publisher = failing(r -> r.eventNo().equals("order.event-8") && failedOnce.add(r.eventNo())
                ? PublishResult.retry("leader not available") : PublishResult.published(), receiver);
        try (Relay relay = relay(publisher, "relay-1").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.claimed()).isEqualTo(40);
            assertThat(first.failed()).isEqualTo(1);
            assertThat(first.published()).as("A0's events after 8 were not sent").isEqualTo(40 - 8);
            assertThat(receiver.times("order.event-12")).isZero();
            OutboxRecord held = postbox.queries().outbox().byEventNo("order.event-12").orElseThrow();
            assertThat(held.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(held.retryCount()).as("holding back is not an attempt").isZero();
            assertThat(held.lockedBy()).isNull();
            assertThat(postbox.queries().outbox().byEventNo("order.event-8").orElseThrow().status())
                    .isEqualTo(OutboxStatus.FAILED);
            assertThat(relay.runOnce().claimed()).as("A0 waits for its failed event").isZero();
            clock.advance(RetryPolicy.DEFAULT_CAP);
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(40);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
    }

    @Test
    final void aRunStopsBeforeALaterEventThatIsNotClaimableYet() throws Exception {
        writeEvents(3, 1, "order.event");
        // order.event-1 failed and waits an hour while order.event-0 is pending again (e.g. retried by hand)
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = 3, retry_count = 1,"
                + " next_retry_time = create_time WHERE event_no = 'order.event-1'");
        clock.advance(Duration.ofHours(-1)); // so that its retry is an hour away
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            assertThat(relay.runOnce().claimed()).as("only the head; the run stops at the failed event").isEqualTo(1);
            assertThat(relay.runOnce().claimed()).isZero();
            assertThat(postbox.queries().outbox().byEventNo("order.event-2").orElseThrow().status())
                    .isEqualTo(OutboxStatus.PENDING);
            clock.advance(Duration.ofHours(2));
            drain(relay);
        }
        assertThat(receiver.deliveries).extracting(OutboxRecord::eventNo)
                .containsExactly("order.event-0", "order.event-1", "order.event-2");
    }

    @Test
    final void aHeadWhoseExpiredLeaseUsedItsLastRetryHoldsBackItsRun() throws Exception {
        writeEvents(3, 1, "order.event");
        // its relays crashed while holding it as often as allowed: the next takeover is one too many
        exec("UPDATE " + postbox.tables().outbox() + " SET publish_status = 1, locked_by = 'crashed', retry_count = 5,"
                + " max_retry_count = 5, lease_expiries = " + RelayDefaults.MAX_LEASE_EXPIRIES
                + ", lock_until = create_time WHERE event_no = 'order.event-0'");
        clock.advance(Duration.ofMinutes(1));
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.dead()).isEqualTo(1);
            assertThat(cycle.published()).isZero();
        }
        assertThat(receiver.deliveries).isEmpty();
        assertThat(postbox.queries().outbox().byEventNo("order.event-0").orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(countStatus(OutboxStatus.PENDING)).isEqualTo(2);
    }

    @Test
    final void unorderedModeClaimsFullBatches() throws Exception {
        writeEvents(1_000, 2, "order.event");
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").ordered(false).build()) {
            List<Cycle> cycles = drain(relay);
            assertThat(cycles).hasSize(2).allMatch(c -> c.claimed() == 500);
        }
        assertThat(receiver.distinct()).isEqualTo(1_000);
    }

    @Test
    final void fourRelaysPublishALargeBacklogOfFiveHundredAggregatesOnceAndInOrder() throws Exception {
        int n = dev.postbox.testing.TestScale.events(50_000);
        writeEvents(n, 500, "order.event");
        Receiver receiver = new Receiver();
        List<Relay> relays = new ArrayList<>();
        long started = System.nanoTime();
        // the wall clock: leases of a failed cycle must be able to expire
        dev.postbox.Postbox live = newPostbox(b -> b.clock(java.time.Clock.systemUTC()));
        try {
            for (int i = 1; i <= 4; i++) {
                relays.add(live.relay(to(receiver)).instanceId("relay-" + i).batchSize(100).start());
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(6).toNanos();
            while (receiver.distinct() < n && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        } finally {
            relays.forEach(Relay::close);
        }
        System.out.printf("[%s] 4 relays drained %,d events over 500 aggregates in %d ms%n", db.kind(), n,
                Duration.ofNanos(System.nanoTime() - started).toMillis());
        assertThat(receiver.distinct()).isEqualTo(n);
        assertThat(receiver.duplicates()).as("no event published twice").isZero();
        assertThat(receiver.orderViolations()).as("per-aggregate order at the receiver").isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(n);
        assertThat(queryLong("SELECT COUNT(DISTINCT locked_by) FROM " + postbox.tables().outbox())).isZero();
    }

    @Test
    final void aRelayThatDiesAfterClaimingIsTakenOverAfterItsLeaseAndFencedAfterwards() throws Exception {
        writeEvents(40, 20, "order.event"); // two events per aggregate
        Receiver receiver = new Receiver();
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, java.util.Set.of());
        List<OutboxRecord> abandoned;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            abandoned = claimer.claim(c, 10, "dead-relay", clock.instant(), clock.instant().plus(RelayDefaults.LEASE));
            c.commit();
        }
        assertThat(abandoned).hasSize(10);
        abandoned.subList(0, 5).forEach(receiver::accept); // it published half of its batch, then died

        try (Relay relay = relay(to(receiver), "relay-2").build()) {
            drain(relay);
            assertThat(receiver.distinct()).as("the other aggregates flow; the dead relay's wait for its lease")
                    .isEqualTo(5 + 20);
            clock.advance(RelayDefaults.LEASE.plusMillis(1));
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(40);
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(receiver.duplicates()).as("duplicates only among the abandoned batch").isEqualTo(5);
        for (OutboxRecord r : abandoned) {
            OutboxRecord now = postbox.queries().outbox().byEventNo(r.eventNo()).orElseThrow();
            assertThat(now.status()).isEqualTo(OutboxStatus.PUBLISHED);
            // issue 11 F10: a takeover is counted apart; it is not a failed publish attempt (was retry_count 1)
            assertThat(now.retryCount()).as("the expired lease is not a failed attempt").isZero();
            assertThat(now.leaseExpiries()).as("the takeover is counted apart").isEqualTo(1);
            assertThat(receiver.times(r.eventNo())).isBetween(1, 2);
        }
        // the dead relay wakes up and tries to record: the fence rejects every write
        Leases late = new Leases(postbox.dialect(), postbox.tables().outbox());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(late.published(c, abandoned, "dead-relay", clock.instant())).isZero();
            List<Leases.Failure> failures = abandoned.stream()
                    .map(r -> new Leases.Failure(r, true, "late", null, 1)).toList();
            assertThat(late.failed(c, failures, "dead-relay", clock.instant())).containsOnly(0);
            assertThat(late.release(c, abandoned, "dead-relay", clock.instant())).isZero();
            c.commit();
        }
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(40);
    }

    @Test
    final void aRelayWithAStaleVersionIsFencedEvenUnderItsOwnName() throws Exception {
        writeEvents(1, 1, "order.event");
        Claimer claimer = Claimer.forDialect(postbox.dialect(), postbox.tables().outbox(), true, java.util.Set.of());
        List<OutboxRecord> first;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            first = claimer.claim(c, 10, "relay-1", clock.instant(), clock.instant().plusSeconds(1));
            c.commit();
        }
        clock.advance(Duration.ofSeconds(2));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(claimer.claim(c, 10, "relay-1", clock.instant(), clock.instant().plusSeconds(60))).hasSize(1);
            assertThat(new Leases(postbox.dialect(), postbox.tables().outbox()).published(c, first, "relay-1", clock.instant()))
                    .as("same locked_by, older version").isZero();
            c.commit();
        }
    }

    @Test
    final void aPoisonEventGoesDeadAtOnceAndBlocksOnlyItsAggregate() throws Exception {
        writeEvents(30, 10, "order.event"); // aggregate A3 holds events 3, 13, 23
        Receiver receiver = new Receiver();
        List<String> deadReasons = new ArrayList<>();
        Publisher publisher = failing(r -> r.eventNo().equals("order.event-3")
                ? PublishResult.dead("payload rejected by schema registry") : PublishResult.published(), receiver);
        try (Relay relay = relay(publisher, "relay-1").listener(new RelayListener() {
            @Override
            public void dead(OutboxRecord event, String reason) {
                deadReasons.add(event.eventNo() + ": " + reason);
            }
        }).build()) {
            drain(relay);
            OutboxRecord poison = postbox.queries().outbox().byEventNo("order.event-3").orElseThrow();
            assertThat(poison.status()).isEqualTo(OutboxStatus.DEAD);
            assertThat(poison.retryCount()).isEqualTo(1);
            assertThat(poison.failReason()).isEqualTo("payload rejected by schema registry");
            assertThat(deadReasons).containsExactly("order.event-3: payload rejected by schema registry");
            assertThat(receiver.distinct()).as("every other aggregate flowed").isEqualTo(27);
            assertThat(postbox.queries().outbox().byEventNo("order.event-13").orElseThrow().status()).isEqualTo(OutboxStatus.PENDING);

            // a person looks at it and cancels it: the aggregate moves on, and the log says who and why
            assertThat(postbox.admin().cancel("order.event-3", "ops@example.com", "bad payload, re-sent by hand")).isTrue();
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(29);
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(queryString("SELECT actor FROM " + postbox.tables().adminLog() + " WHERE event_no = 'order.event-3'"))
                .isEqualTo("ops@example.com");
    }

    @Test
    final void aPublisherDownFor30SecondsLosesNothingAndKeepsTheOrder() throws Exception {
        writeEvents(200, 20, "order.event");
        java.time.Instant recovers = clock.instant().plusSeconds(30);
        Receiver receiver = new Receiver();
        List<String> reasons = java.util.Collections.synchronizedList(new ArrayList<>());
        Publisher flaky = failing(r -> clock.instant().isBefore(recovers)
                ? PublishResult.retry("broker unavailable: connection refused") : PublishResult.published(), receiver);
        try (Relay relay = relay(flaky, "relay-1") // default retry policy and max retries
                .listener(new RelayListener() {
                    @Override
                    public void failed(OutboxRecord event, String reason, java.time.Instant nextRetry) {
                        reasons.add(reason);
                    }
                }).build()) {
            for (int second = 0; second < 120 && receiver.distinct() < 200; second++) {
                drain(relay);
                if (second == 15) {
                    assertThat(countStatus(OutboxStatus.FAILED)).as("the heads wait for their retry").isEqualTo(20);
                    assertThat(queryString("SELECT fail_reason FROM " + postbox.tables().outbox() + " WHERE publish_status = 3"))
                            .isEqualTo("broker unavailable: connection refused");
                }
                clock.advance(Duration.ofSeconds(1));
            }
        }
        assertThat(receiver.distinct()).isEqualTo(200);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(reasons).isNotEmpty().allMatch(r -> r.equals("broker unavailable: connection refused"));
        assertThat(queryLong("SELECT MIN(retry_count) FROM " + postbox.tables().outbox() + " WHERE event_no IN ("
                + "'order.event-0', 'order.event-1', 'order.event-19')")).as("the first events retried").isGreaterThanOrEqualTo(4);
        assertThat(countStatus(OutboxStatus.DEAD)).isZero();
    }

    @Test
    final void aPartialFailureRetriesOnlyTheEventsThatFailed() throws Exception {
        writeEvents(30, 30, "order.event");
        Receiver receiver = new Receiver();
        java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Publisher publisher = failing(r -> r.id() % 3 == 0 && failedOnce.add(r.eventNo())
                ? PublishResult.retry("partition leader moved") : PublishResult.published(), receiver);
        try (Relay relay = relay(publisher, "relay-1").build()) {
            Cycle first = relay.runOnce();
            assertThat(first.claimed()).isEqualTo(30);
            assertThat(first.failed()).isEqualTo(failedOnce.size()).isPositive();
            assertThat(first.published()).isEqualTo(30 - failedOnce.size());
            clock.advance(RetryPolicy.DEFAULT_CAP);
            Cycle second = relay.runOnce();
            assertThat(second.claimed()).as("only the failed ones come back").isEqualTo(failedOnce.size());
        }
        assertThat(receiver.distinct()).isEqualTo(30);
        assertThat(receiver.duplicates()).isZero();
    }

    @Test
    final void aSendThatNeverAnswersTimesOutAndIsRetried() throws Exception {
        writeEvents(5, 5, "order.event");
        Receiver receiver = new Receiver();
        java.util.concurrent.atomic.AtomicBoolean hang = new java.util.concurrent.atomic.AtomicBoolean(true);
        Publisher publisher = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                if (r.eventNo().equals("order.event-2") && hang.getAndSet(false)) {
                    out.add(new CompletableFuture<>()); // never completes
                } else {
                    receiver.accept(r);
                    out.add(CompletableFuture.completedFuture(PublishResult.published()));
                }
            }
            return out;
        };
        try (Relay relay = relay(publisher, "relay-1").sendTimeout(Duration.ofMillis(200)).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.published()).isEqualTo(4);
            assertThat(cycle.failed()).isEqualTo(1);
            assertThat(postbox.queries().outbox().byEventNo("order.event-2").orElseThrow().failReason())
                    .isEqualTo("publish timed out after PT0.2S");
            clock.advance(RetryPolicy.DEFAULT_CAP);
            relay.runOnce();
        }
        assertThat(receiver.distinct()).isEqualTo(5);
    }

    @Test
    final void retriesAreExhaustedIntoDeadAfterMaxRetries() throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("t").payload("{}").maxRetries(2).build()));
        Publisher down = failing(r -> PublishResult.retry("503 Service Unavailable"), new Receiver());
        try (Relay relay = relay(down, "relay-1").build()) {
            for (int attempt = 1; attempt <= 3; attempt++) {
                assertThat(relay.runOnce().claimed()).as("attempt " + attempt).isEqualTo(1);
                clock.advance(RetryPolicy.DEFAULT_CAP);
            }
            assertThat(relay.runOnce().claimed()).isZero();
        }
        OutboxRecord dead = postbox.queries().outbox().byEventNo("E-1").orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.retryCount()).isEqualTo(3);
        assertThat(dead.failReason()).isEqualTo("retries exhausted (2): 503 Service Unavailable");

        assertThat(postbox.admin().retry("E-1", "ops@example.com", "downstream fixed")).isTrue();
        assertThat(postbox.admin().retry("E-1", "ops@example.com", "twice")).as("not DEAD any more").isFalse();
        Receiver receiver = new Receiver();
        try (Relay relay = relay(to(receiver), "relay-1").build()) {
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(1);
        assertThat(postbox.queries().outbox().byEventNo("E-1").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
    }

    @Test
    final void unknownChannelOrTopicIsDeadWithThatReason() throws Exception {
        inTx(c -> postbox.outbox().writeAll(c, List.of(
                OutboxEvent.builder().eventNo("E-1").aggregate("ORDER", "1").eventType("X").channel("SMS").payload("{}").build(),
                OutboxEvent.builder().eventNo("E-2").aggregate("ORDER", "2").eventType("X").channel("EVENT_BUS")
                        .topic("order.event").payload("{}").build())));
        EventBus bus = new EventBus();
        Receiver receiver = new Receiver();
        bus.subscribe("order.event", receiver::accept);
        try (Relay relay = relay(Routes.of("EVENT_BUS", bus), "relay-1").build()) {
            drain(relay);
        }
        assertThat(receiver.distinct()).isEqualTo(1);
        OutboxRecord unroutable = postbox.queries().outbox().byEventNo("E-1").orElseThrow();
        assertThat(unroutable.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(unroutable.failReason()).isEqualTo("no publisher for channel 'SMS'");
    }

    @Test
    final void closeGivesBackTheLeasesItCouldNotRecord() throws Exception {
        writeEvents(3, 3, "order.event");
        java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
        Publisher stuck = records -> {
            sending.countDown();
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            records.forEach(r -> out.add(new CompletableFuture<>()));
            return out;
        };
        Relay relay = relay(stuck, "relay-1").sendTimeout(Duration.ofSeconds(30)).shutdownTimeout(Duration.ofMillis(300)).start();
        assertThat(sending.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(countStatus(OutboxStatus.PUBLISHING)).isEqualTo(3);
        relay.close();
        assertThat(countStatus(OutboxStatus.PENDING)).as("released, not left to expire").isEqualTo(3);
        assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE locked_by IS NOT NULL")).isZero();
        Receiver receiver = new Receiver();
        try (Relay next = relay(to(receiver), "relay-2").build()) {
            drain(next);
        }
        assertThat(receiver.distinct()).isEqualTo(3);
    }

    @Test
    final void bulkAdminActionsTouchOnlyMatchingEventsInAllowedStatuses() throws Exception {
        writeEvents(6, 6, "order.event");
        Publisher poison = failing(r -> PublishResult.dead("rejected"), new Receiver());
        try (Relay relay = relay(poison, "relay-1").build()) {
            drain(relay);
        }
        assertThat(countStatus(OutboxStatus.DEAD)).isEqualTo(6);
        int retried = postbox.admin().retryWhere(dev.postbox.admin.AdminFilter.status(OutboxStatus.DEAD, 4)
                .topic("order.event"), "ops", "replay after fix");
        assertThat(retried).isEqualTo(4);
        assertThat(countStatus(OutboxStatus.PENDING)).isEqualTo(4);
        assertThat(postbox.admin().cancelWhere(dev.postbox.admin.AdminFilter.status(OutboxStatus.DEAD, 100)
                .topic("other.topic"), "ops", "nothing matches")).isZero();
        assertThat(postbox.admin().cancelWhere(new dev.postbox.admin.AdminFilter(null, "order.event", null, null, null, 100),
                "ops", "give up")).isEqualTo(6);
        assertThat(countStatus(OutboxStatus.CANCELLED)).isEqualTo(6);
        assertThat(count(postbox.tables().adminLog())).isEqualTo(10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> postbox.admin().retryWhere(
                        dev.postbox.admin.AdminFilter.status(OutboxStatus.PUBLISHED, 10), "ops", "x"))
                .isInstanceOf(dev.postbox.common.ValidationException.class).hasMessageContaining("filter.statuses");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> postbox.admin().cancel("order.event-1", "", "x"))
                .isInstanceOf(dev.postbox.common.ValidationException.class).hasMessageContaining("actor");
    }

    /**
     * With two batches in flight, the next batch is claimed and published while the first is still out: a
     * slow send of one batch does not hold back events of other aggregates, and the later events of the slow
     * batch's aggregates wait for it, so every aggregate stays in order.
     */
    @Test
    void withTwoBatchesInFlightTheNextIsPublishedWhileTheFirstIsStillOutAndOrderHolds() throws Exception {
        writeEvents(60, 20, "order.event"); // 3 events for each of 20 aggregates
        Receiver receiver = new Receiver();
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        java.util.Set<String> slowAggregates = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Publisher firstCallSlow = records -> {
            boolean slow = calls.getAndIncrement() == 0;
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                if (slow) {
                    slowAggregates.add(r.aggregateId());
                    out.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        receiver.accept(r);
                        return PublishResult.published();
                    }));
                } else {
                    receiver.accept(r);
                    out.add(CompletableFuture.completedFuture(PublishResult.published()));
                }
            }
            return out;
        };
        try (Relay relay = relay(firstCallSlow, "pipelined").batchSize(8).inFlightBatches(2)
                .sendTimeout(Duration.ofSeconds(20)).start()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (receiver.distinct() < 60 - 24 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            // the first batch (8 events, 2 aggregates with followers) is still out: the other 18 aggregates'
            // events went out through the second slot meanwhile; the slow aggregates' later events did not
            assertThat(release.getCount()).isEqualTo(1);
            assertThat(receiver.distinct()).as("published while the first batch was still out")
                    .isGreaterThanOrEqualTo(60 - 24);
            assertThat(receiver.deliveries).noneMatch(r -> slowAggregates.contains(r.aggregateId()));
            release.countDown();
            while (receiver.distinct() < 60 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }
        assertThat(receiver.distinct()).isEqualTo(60);
        assertThat(receiver.duplicates()).isZero();
        assertThat(receiver.orderViolations()).isEmpty();
        assertThat(countStatus(OutboxStatus.PUBLISHED)).isEqualTo(60);
    }
}
