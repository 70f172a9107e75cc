package dev.postbox.server;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A destination's in-flight bound: sends beyond it are retried at once, never queued; permits come back with outcomes. */
class BoundedPublisherTest {

    /** A destination that completes its sends only when told. */
    static final class Slow implements Publisher {
        final List<CompletableFuture<PublishResult>> pending = new ArrayList<>();
        final List<String> sent = new ArrayList<>();
        boolean fail;

        @Override
        public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
            if (fail) {
                throw new IllegalStateException("client closed");
            }
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                CompletableFuture<PublishResult> f = new CompletableFuture<>();
                pending.add(f);
                sent.add(r.eventNo());
                out.add(f);
            }
            return out;
        }
    }

    private static OutboxRecord event(String no) {
        return new OutboxRecord(1, no, "ORDER", no, "ORDER_CREATED", 1, "s", "MQ", "t", null, "{}", Map.of(),
                OutboxStatus.PUBLISHING, 0, 5, null, null, null, null, null, null, null, null, 0, Instant.EPOCH,
                Instant.EPOCH);
    }

    private static PublishResult now(CompletionStage<PublishResult> s) {
        return s.toCompletableFuture().getNow(null);
    }

    @Test
    void sendsBeyondTheBoundAreRetriedAtOnceAndPermitsReturnWithTheOutcomes() {
        Slow slow = new Slow();
        BoundedPublisher bounded = new BoundedPublisher("rabbit", slow, 2);
        List<CompletionStage<PublishResult>> first = bounded.publish(List.of(event("A"), event("B"), event("C")));
        assertThat(slow.sent).containsExactly("A", "B");
        assertThat(bounded.inFlight()).isEqualTo(2);
        assertThat(now(first.get(0))).as("still in flight").isNull();
        PublishResult c = now(first.get(2));
        assertThat(c.kind()).isEqualTo(PublishResult.Kind.RETRY);
        assertThat(c.reason()).contains("destination 'rabbit' has 2 sends in flight (max-in-flight)");

        slow.pending.get(0).complete(PublishResult.published());
        slow.pending.get(1).completeExceptionally(new IllegalStateException("nack"));
        assertThat(bounded.inFlight()).as("a success and a failure both give their permit back").isZero();
        List<CompletionStage<PublishResult>> second = bounded.publish(List.of(event("C")));
        assertThat(slow.sent).containsExactly("A", "B", "C");
        assertThat(now(second.get(0))).isNull();
        assertThat(bounded.inFlight()).isEqualTo(1);
    }

    /**
     * Permits freed by other threads while a call takes its permits never let a later event of the call go out while an
     * earlier one was held back: what a call sends is always a prefix of it (else a later event of an aggregate would
     * overtake an earlier one, and the relay would send it again after it).
     */
    @Test
    void whatACallSendsIsAlwaysAPrefixOfItEvenWhilePermitsComeBack() throws Exception {
        java.util.concurrent.ConcurrentLinkedQueue<CompletableFuture<PublishResult>> open =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        Publisher async = records -> {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord ignored : records) {
                CompletableFuture<PublishResult> f = new CompletableFuture<>();
                open.add(f);
                out.add(f);
            }
            return out;
        };
        BoundedPublisher bounded = new BoundedPublisher("nats", async, 8);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread completer = new Thread(() -> {
            while (!stop.get()) {
                CompletableFuture<PublishResult> f = open.poll();
                if (f != null) {
                    f.complete(PublishResult.published());
                }
            }
        });
        completer.start();
        try {
            List<OutboxRecord> call = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                call.add(event("E" + i));
            }
            int partial = 0;
            for (int round = 0; round < 20_000; round++) {
                List<CompletionStage<PublishResult>> results = bounded.publish(call);
                boolean heldBack = false;
                for (int i = 0; i < results.size(); i++) {
                    PublishResult r = now(results.get(i));
                    boolean held = r != null && !r.attempted();
                    if (heldBack) {
                        assertThat(held).as("round " + round + ": event " + i + " sent after an earlier one was held back")
                                .isTrue();
                    }
                    heldBack |= held;
                }
                partial += heldBack ? 1 : 0;
            }
            assertThat(partial).as("calls that met the bound (the case under test happened)").isPositive();
        } finally {
            stop.set(true);
            completer.join();
        }
    }

    /** A destination whose every send answers RETRY (down), or PUBLISHED once {@code up}; {@code poison} always fails. */
    static final class Flaky implements Publisher {
        volatile boolean up;
        volatile String poison;
        final List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
            List<CompletionStage<PublishResult>> out = new ArrayList<>();
            for (OutboxRecord r : records) {
                sent.add(r.eventNo());
                out.add(CompletableFuture.completedFuture(up && !r.eventNo().equals(poison) ? PublishResult.published()
                        : PublishResult.retry("connection refused")));
            }
            return out;
        }
    }

    private static OutboxRecord event(long id, String no) {
        return new OutboxRecord(id, no, "ORDER", no, "ORDER_CREATED", 1, "s", "MQ", "t", null, "{}", Map.of(),
                OutboxStatus.PUBLISHING, 0, 5, null, null, null, null, null, null, null, null, 0, Instant.EPOCH,
                Instant.EPOCH);
    }

    private static List<PublishResult> call(BoundedPublisher p, List<OutboxRecord> events) {
        return p.publish(events).stream().map(BoundedPublisherTest::now).toList();
    }

    /**
     * A destination that is down: after five failed sends (of more than one event) its events wait unsent, one probe
     * goes per interval, a different event each time, and a probe failing after another event's probe counts as no
     * attempt; the first success closes the circuit.
     */
    @Test
    void aDestinationThatIsDownIsProbedNotHammeredAndItsEventsKeepTheirRetries() throws Exception {
        Flaky flaky = new Flaky();
        BoundedPublisher p = new BoundedPublisher("rabbit", flaky, 100);
        p.probeInterval(java.time.Duration.ofMillis(50));
        List<OutboxRecord> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(event(i + 1, "E" + i));
        }
        List<PublishResult> first = call(p, events.subList(0, 5));
        assertThat(first).allMatch(r -> r.kind() == PublishResult.Kind.RETRY && r.attempted());
        assertThat(p.circuitOpen()).isTrue();
        assertThat(p.status()).isEqualTo("DOWN");

        List<PublishResult> held = call(p, events);
        assertThat(held).as("open: nothing sent before the probe interval").allMatch(r -> !r.attempted());
        assertThat(flaky.sent).hasSize(5);
        assertThat(held.get(0).reason()).contains("destination 'rabbit' is down", "connection refused");

        int attempted = 0;
        java.util.Set<String> probes = new java.util.LinkedHashSet<>();
        for (int round = 0; round < 6; round++) {
            Thread.sleep(60);
            int before = flaky.sent.size();
            List<PublishResult> r = call(p, events);
            assertThat(flaky.sent.size() - before).as("one probe per interval").isEqualTo(1);
            probes.add(flaky.sent.get(flaky.sent.size() - 1));
            attempted += (int) r.stream().filter(PublishResult::attempted).count();
        }
        assertThat(probes).as("the probes take turns").hasSizeGreaterThan(1);
        assertThat(attempted).as("only the first probe's failure counts as an attempt").isEqualTo(1);

        flaky.up = true;
        Thread.sleep(60);
        assertThat(call(p, events).stream().filter(r -> r.kind() == PublishResult.Kind.PUBLISHED)).hasSize(1);
        assertThat(p.circuitOpen()).as("the probe's success closes it").isFalse();
        assertThat(call(p, events)).allMatch(r -> r.kind() == PublishResult.Kind.PUBLISHED);
    }

    @Test
    void theBreakersThresholdAndProbeIntervalAreTheDestinationsOwn() throws Exception {
        Flaky flaky = new Flaky();
        BoundedPublisher p = new BoundedPublisher("hooks", flaky, 100, new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                java.time.Duration.ofSeconds(11), new dev.postbox.server.config.ServerConfig.Breaker(2, java.time.Duration.ofMillis(400)));
        call(p, List.of(event(1, "E1")));
        assertThat(p.circuitOpen()).as("one failure of two").isFalse();
        call(p, List.of(event(2, "E2")));
        long opened = System.nanoTime();
        assertThat(p.circuitOpen()).as("two failures in a row of two events").isTrue();
        assertThat(call(p, List.of(event(3, "E3"))).get(0).reason()).contains("destination 'hooks' is down (2+ sends");
        Thread.sleep(150);
        call(p, List.of(event(3, "E3")));
        if (System.nanoTime() - opened < java.time.Duration.ofMillis(390).toNanos()) { // unless this thread stalled
            assertThat(flaky.sent).as("no probe before the destination's 400 ms").containsExactly("E1", "E2");
        }
        Thread.sleep(300);
        call(p, List.of(event(3, "E3")));
        assertThat(flaky.sent).as("its probe after them").containsExactly("E1", "E2", "E3");
    }

    /** One event failing alone, however often, is that event's problem: the destination stays open to the others. */
    @Test
    void aPoisonEventNeitherOpensTheCircuitNorHoldsItShut() throws Exception {
        Flaky flaky = new Flaky();
        flaky.up = true;
        flaky.poison = "P";
        BoundedPublisher p = new BoundedPublisher("hook", flaky, 100);
        p.probeInterval(java.time.Duration.ofMillis(50));
        OutboxRecord poison = event(1, "P");
        for (int i = 0; i < 10; i++) {
            PublishResult r = call(p, List.of(poison)).get(0);
            assertThat(r.attempted()).as("each failure of the poison counts").isTrue();
        }
        assertThat(p.circuitOpen()).isFalse();

        // the destination goes down and up again while the poison waits at the head of every call
        flaky.up = false;
        call(p, List.of(event(2, "A"), event(3, "B"), event(4, "C"), event(5, "D"), event(6, "F")));
        assertThat(p.circuitOpen()).isTrue();
        flaky.up = true;
        List<OutboxRecord> withPoisonFirst = List.of(poison, event(2, "A"), event(3, "B"));
        for (int round = 0; round < 5 && p.circuitOpen(); round++) {
            Thread.sleep(60);
            call(p, withPoisonFirst);
        }
        assertThat(p.circuitOpen()).as("another event's probe closed it within five probes").isFalse();
    }

    /** Each bulkhead sends through its own client, under the one bound (and breaker) of the destination. */
    @Test
    void clientsOfOneDestinationSendOnTheirOwnUnderItsOneBound() throws Exception {
        Slow shared = new Slow();
        Slow tenantB = new Slow();
        BoundedPublisher destination = new BoundedPublisher("nats", shared, 3);
        Publisher b = destination.client(tenantB);
        destination.publish(List.of(event("A1"), event("A2")));
        List<CompletionStage<PublishResult>> viaB = b.publish(List.of(event("B1"), event("B2")));
        assertThat(shared.sent).containsExactly("A1", "A2");
        assertThat(tenantB.sent).as("B's client, not A's connection").containsExactly("B1");
        assertThat(now(viaB.get(1)).attempted()).as("the destination's bound is shared").isFalse();
        assertThat(destination.inFlight()).isEqualTo(3);
        tenantB.pending.get(0).complete(PublishResult.published());
        assertThat(destination.inFlight()).isEqualTo(2);
        AtomicBooleanCloseable closed = new AtomicBooleanCloseable();
        destination.client(closed);
        destination.close();
        assertThat(closed.closed).as("a client is closed with its destination").isTrue();
    }

    static final class AtomicBooleanCloseable implements Publisher, AutoCloseable {
        volatile boolean closed;

        @Override
        public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
            return List.of();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void aDestinationThatThrowsGivesEveryPermitBack() {
        Slow slow = new Slow();
        slow.fail = true;
        BoundedPublisher bounded = new BoundedPublisher("kafka", slow, 3);
        assertThatThrownBy(() -> bounded.publish(List.of(event("A"), event("B")))).hasMessage("client closed");
        assertThat(bounded.inFlight()).isZero();
    }
    @Test
    void aClientThatNeverAnswersHoldsItsPermitsOnlyUntilTheAnswerTimeoutAndIsTakenForDown() throws Exception {
        Slow silent = new Slow(); // its futures complete only when the test says: here, too late or never
        BoundedPublisher bounded = new BoundedPublisher("stuck", silent, 2, new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                java.time.Duration.ofMillis(200), dev.postbox.server.config.ServerConfig.Breaker.DEFAULT);
        List<CompletionStage<PublishResult>> first = bounded.publish(List.of(event(1, "A"), event(2, "B"), event(3, "C")));
        assertThat(silent.sent).containsExactly("A", "B");
        assertThat(bounded.inFlight()).isEqualTo(2);
        dev.postbox.testing.Await.until("the permits back after the answer timeout", java.time.Duration.ofSeconds(10),
                () -> bounded.inFlight() == 0, bounded::inFlight);
        assertThat(first.get(0).toCompletableFuture()).isCompletedExceptionally();
        assertThatThrownBy(() -> first.get(0).toCompletableFuture().join()).hasMessageContaining(
                "destination 'stuck' gave no answer within 200 ms");
        assertThat(bounded.lastFailureReason()).contains("gave no answer within 200 ms");

        silent.pending.get(0).complete(PublishResult.published()); // a late answer settles nothing twice
        assertThat(bounded.inFlight()).as("no permit given back twice").isZero();
        bounded.publish(List.of(event(4, "D"), event(5, "E"), event(6, "F")));
        assertThat(silent.sent).as("still two at most in flight").containsExactly("A", "B", "D", "E");

        dev.postbox.testing.Await.until("D and E timed out", java.time.Duration.ofSeconds(10), () -> bounded.inFlight() == 0,
                bounded::inFlight);
        assertThat(bounded.circuitOpen()).as("4 silent sends of different events, not yet 5").isFalse();
        bounded.publish(List.of(event(7, "G")));
        dev.postbox.testing.Await.until("a destination that never answers is taken for down", java.time.Duration.ofSeconds(10),
                bounded::circuitOpen, bounded::status);
        assertThat(bounded.status()).isEqualTo("DOWN");
    }
}
