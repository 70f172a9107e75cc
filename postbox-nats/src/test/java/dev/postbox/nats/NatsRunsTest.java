package dev.postbox.nats;

import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.spi.Envelope;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole batches through {@link NatsPublisher}'s order lane (the subject) against the local JetStream:
 * an aggregate's run goes in one call and is stored in order; a message the stream rejects holds the
 * rest of its aggregate's run (reported not published although the stream stored it), which goes out
 * again in order once the failed one is resolved, acknowledged as duplicates; other aggregates go on.
 */
class NatsRunsTest extends NatsTestBase {

    /** {@code publisher} counting its calls, with the publisher's own order lane. */
    private static Publisher counting(Publisher publisher, AtomicInteger calls) {
        return new Publisher() {
            @Override
            public List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records) {
                calls.incrementAndGet();
                return publisher.publish(records);
            }

            @Override
            public Object orderLane(OutboxRecord event) {
                return publisher.orderLane(event);
            }
        };
    }

    private void writeAll(List<OutboxEvent> events) throws Exception {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().writeAll(c, events);
            c.commit();
        }
    }

    private static OutboxEvent event(String eventNo, String aggregate, String topic, String payload) {
        return OutboxEvent.builder().eventNo(eventNo).aggregate("ORDER", aggregate).eventType("ORDER_CHANGED")
                .channel("NATS").topic(topic).payload(payload).build();
    }

    /** The payloads' seq per aggregate, in stream order. */
    private Map<String, List<Integer>> stored(String stream) throws Exception {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        long last = nats.jsm.getStreamInfo(stream).getStreamState().getLastSequence();
        for (long seq = 1; seq <= last; seq++) {
            MessageInfo m = nats.jsm.getMessage(stream, seq);
            String payload = new String(m.getData(), StandardCharsets.UTF_8);
            out.computeIfAbsent(m.getHeaders().getFirst(Envelope.AGGREGATE_ID), k -> new ArrayList<>())
                    .add(Seq.of(payload));
        }
        return out;
    }

    /** The {@code "seq":n} of a payload. */
    private static final class Seq {
        static int of(String payload) {
            int at = payload.indexOf("\"seq\":") + 6;
            int end = at;
            while (end < payload.length() && Character.isDigit(payload.charAt(end))) {
                end++;
            }
            return Integer.parseInt(payload.substring(at, end));
        }
    }

    @Test
    void aBatchOfRunsGoesInOneCallAndIsStoredInOrderPerAggregate() throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(event(nats.id + "-" + i, "A" + (i % 20), "order.changed", "{\"seq\":" + i + "}"));
        }
        writeAll(events);
        AtomicInteger calls = new AtomicInteger();
        try (NatsPublisher publisher = NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix(nats.prefix).build();
             Relay relay = postbox.relay(counting(publisher, calls)).instanceId("r-runs").batchSize(500).build()) {
            Cycle cycle = relay.runOnce();
            assertThat(cycle.claimed()).isEqualTo(500);
            assertThat(cycle.published()).isEqualTo(500);
        }
        assertThat(calls.get()).as("20 runs of 25 events in one call, not 25 waves").isEqualTo(1);
        Map<String, List<Integer>> stored = stored(nats.stream);
        assertThat(stored).hasSize(20);
        stored.forEach((aggregate, seqs) -> assertThat(seqs).as(aggregate).hasSize(25).isSorted().doesNotHaveDuplicates());
    }

    @Test
    void aMessageTheStreamRejectsHoldsTheRestOfItsRunWhichGoesOutAgainInOrder() throws Exception {
        String stream = nats.stream + "_SMALL";
        String prefix = "pbs" + nats.id + ".";
        nats.jsm.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ">").storageType(StorageType.Memory)
                .maxMsgSize(1024).duplicateWindow(java.time.Duration.ofMinutes(2)).build());
        try {
            String big = "{\"seq\":3,\"pad\":\"" + "x".repeat(2_000) + "\"}";
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                events.add(event("big-" + i, "BIG", "order.changed", i == 3 ? big : "{\"seq\":" + i + "}"));
                events.add(event("ok-" + i, "OK", "order.changed", "{\"seq\":" + i + "}"));
            }
            writeAll(events);
            try (NatsPublisher publisher = NatsPublisher.builder().servers(JetStreamFixture.URL).subjectPrefix(prefix).build();
                 Relay relay = postbox.relay(publisher).instanceId("r-small").build()) {
                Cycle first = relay.runOnce();
                assertThat(first.claimed()).isEqualTo(16);
                assertThat(first.dead()).as("too large for the stream: refused every time").isEqualTo(1);
                assertThat(first.published()).as("OK's eight and BIG's first three").isEqualTo(11);
                OutboxRecord failed = postbox.queries().outbox().byEventNo("big-3").orElseThrow();
                assertThat(failed.status()).isEqualTo(OutboxStatus.DEAD);
                assertThat(failed.failReason()).contains("10054").contains("larger than the stream takes");
                assertThat(relay.runOnce().claimed()).as("BIG waits behind its dead event").isZero();
                for (int i = 4; i < 8; i++) {
                    OutboxRecord held = postbox.queries().outbox().byEventNo("big-" + i).orElseThrow();
                    assertThat(held.status()).as("big-" + i).isEqualTo(OutboxStatus.PENDING);
                    assertThat(held.retryCount()).as("big-" + i + " held, not an attempt").isZero();
                }
                // the later ones were either stored behind the rejected one (published before its reply came)
                // or not sent at all (its reply came first): in order either way
                List<Integer> stored = stored(stream).get("BIG");
                assertThat(stored).startsWith(0, 1, 2).isSorted().doesNotHaveDuplicates().isSubsetOf(0, 1, 2, 4, 5, 6, 7);

                assertThat(postbox.admin().cancel("big-3", "test", "larger than the stream takes")).isTrue();
                Cycle next = relay.runOnce();
                assertThat(next.published()).as("sent again, acknowledged as duplicates").isEqualTo(4);
            }
            Map<String, List<Integer>> stored = stored(stream);
            assertThat(stored.get("BIG")).as("once each, in order").containsExactly(0, 1, 2, 4, 5, 6, 7);
            assertThat(stored.get("OK")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
            assertThat(postbox.queries().outbox().byEventNo("big-7").orElseThrow().status()).isEqualTo(OutboxStatus.PUBLISHED);
        } finally {
            nats.jsm.deleteStream(stream);
        }
    }
}
