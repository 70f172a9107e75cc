package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The compact receiver (one bit per seq) on crafted and random delivery sequences: the same distinct,
 * duplicate and order-violation verdicts as the set of event_no strings it replaced.
 */
class ReceiverTest {

    private static OutboxRecord record(long id, long seq, String aggregate) {
        Instant now = Instant.EPOCH;
        return new OutboxRecord(id, EventWriter.EVENT_NO_PREFIX + seq, "ORDER", aggregate, "ORDER_CHANGED", 1, "bench",
                "MQ", EventWriter.TOPIC, null, "{}", Map.of(), OutboxStatus.PUBLISHING, 0, 5, null, null, null, null,
                null, null, null, null, 0, now, now);
    }

    /** The receiver this one replaced: a set of event_no strings and the highest id per aggregate. */
    private static final class ReferenceReceiver {
        final Set<String> seen = new HashSet<>();
        final Map<String, Long> highest = new HashMap<>();
        long deliveries;
        long violations;

        void accept(OutboxRecord r) {
            deliveries++;
            String key = r.aggregateType() + "/" + r.aggregateId();
            if (!seen.add(r.eventNo())) {
                return;
            }
            long h = highest.getOrDefault(key, 0L);
            if (r.id() < h) {
                violations++;
            } else {
                highest.put(key, r.id());
            }
        }
    }

    @Test
    void inOrderOnceEachIsClean() {
        Receiver r = new Receiver();
        r.accept(record(1, 0, "A0"));
        r.accept(record(2, 1, "A1"));
        r.accept(record(3, 2, "A0"));
        assertThat(r.distinct()).isEqualTo(3);
        assertThat(r.duplicates()).isZero();
        assertThat(r.orderViolations()).isZero();
    }

    @Test
    void aRedeliveryIsADuplicateAndNeverAnOrderViolation() {
        Receiver r = new Receiver();
        r.accept(record(1, 0, "A0"));
        r.accept(record(2, 1, "A0"));
        r.accept(record(1, 0, "A0")); // again, after a higher id of its aggregate: a duplicate only
        r.accept(record(2, 1, "A0"));
        assertThat(r.distinct()).isEqualTo(2);
        assertThat(r.duplicates()).isEqualTo(2);
        assertThat(r.orderViolations()).isZero();
    }

    @Test
    void aFirstDeliveryBelowTheHighestIdOfItsAggregateIsAViolationAndOnlyThere() {
        Receiver r = new Receiver();
        r.accept(record(5, 4, "A0"));
        r.accept(record(3, 2, "A1")); // another aggregate: not compared with A0
        r.accept(record(4, 3, "A0")); // below 5 of A0
        r.accept(record(6, 5, "A0"));
        assertThat(r.distinct()).isEqualTo(4);
        assertThat(r.duplicates()).isZero();
        assertThat(r.orderViolations()).isEqualTo(1);
    }

    @Test
    void seqsFarApartAndOnPageEdgesAreKeptApart() {
        Receiver r = new Receiver();
        long[] seqs = {0, SeqSet.PAGE_BITS - 1, SeqSet.PAGE_BITS, 63, 64, 1_000_000_000L, 1_000_000_001L};
        for (int i = 0; i < seqs.length; i++) {
            r.accept(record(i + 1, seqs[i], "A" + i));
        }
        for (int i = 0; i < seqs.length; i++) {
            r.accept(record(i + 1, seqs[i], "A" + i));
        }
        assertThat(r.distinct()).isEqualTo(seqs.length);
        assertThat(r.duplicates()).isEqualTo(seqs.length);
    }

    @Test
    void randomSequencesGetTheVerdictsOfTheStringSet() {
        Random random = new Random(13);
        for (int round = 0; round < 50; round++) {
            int events = 1 + random.nextInt(3000);
            int aggregates = 1 + random.nextInt(20);
            List<OutboxRecord> deliveries = new ArrayList<>();
            for (int seq = 0; seq < events; seq++) {
                deliveries.add(record(seq + 1, seq, "A" + (seq % aggregates)));
            }
            // swaps make order violations, repeats make duplicates (and redeliveries out of order)
            for (int i = 0; i < events / 10; i++) {
                int a = random.nextInt(deliveries.size());
                int b = random.nextInt(deliveries.size());
                OutboxRecord t = deliveries.get(a);
                deliveries.set(a, deliveries.get(b));
                deliveries.set(b, t);
                deliveries.add(random.nextInt(deliveries.size()), deliveries.get(random.nextInt(deliveries.size())));
            }
            Receiver compact = new Receiver();
            ReferenceReceiver reference = new ReferenceReceiver();
            for (OutboxRecord d : deliveries) {
                compact.accept(d);
                reference.accept(d);
            }
            assertThat(compact.distinct()).as("round %d distinct", round).isEqualTo(reference.seen.size());
            assertThat(compact.duplicates()).as("round %d duplicates", round)
                    .isEqualTo(reference.deliveries - reference.seen.size());
            assertThat(compact.orderViolations()).as("round %d violations", round).isEqualTo(reference.violations);
        }
    }

    @Test
    void concurrentDeliveriesOfTheSameEventsCountEachOnceAndTheRestAsDuplicates() throws Exception {
        Receiver r = new Receiver();
        int threads = 4;
        int events = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int seq = 0; seq < events; seq++) {
                    r.accept(record(seq + 1, seq, "A" + (seq % 7)));
                }
            });
            workers.add(w);
            w.start();
        }
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(r.distinct()).isEqualTo(events);
        assertThat(r.duplicates()).isEqualTo((long) (threads - 1) * events);
    }

    @Test
    void anEventNoTheBenchDidNotWriteIsRefusedByName() {
        Receiver r = new Receiver();
        OutboxRecord foreign = new OutboxRecord(1, "ORDER_CREATED:1", "ORDER", "A0", "T", 1, "x", "MQ", null, null, "{}",
                Map.of(), OutboxStatus.PUBLISHING, 0, 5, null, null, null, null, null, null, null, null, 0,
                Instant.EPOCH, Instant.EPOCH);
        assertThatThrownBy(() -> r.accept(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ORDER_CREATED:1");
        assertThat(r.distinct()).isZero();
    }
}
