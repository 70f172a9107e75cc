package dev.postbox.relay;

import dev.postbox.Postbox;
import dev.postbox.common.RetryPolicy;
import dev.postbox.message.MessageEvent;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.outbox.WriteResult;
import dev.postbox.spi.PublishResult;
import dev.postbox.spi.Publisher;
import dev.postbox.testing.DatabaseContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several writer processes (here: Postbox instances with their own clocks) writing the same aggregates,
 * each transaction locking the aggregate's business row first as the README says: the relay publishes
 * each aggregate's events in commit order whatever the writers' clocks, and their ids never clash.
 */
public abstract class WriterOrderContract extends DatabaseContract {

    private static final int AGGREGATES = 20;
    private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

    /** One writer 5 ms behind the wall clock, one 2 s behind. */
    private Postbox slightlyBehind;
    private Postbox farBehind;

    @BeforeEach
    final void aggregatesAndWriters() throws SQLException {
        exec("DROP TABLE IF EXISTS agg");
        exec("CREATE TABLE agg (id VARCHAR(16) NOT NULL PRIMARY KEY, seq INT NOT NULL)");
        for (int i = 0; i < AGGREGATES; i++) {
            exec("INSERT INTO agg (id, seq) VALUES ('AGG-" + i + "', 0)");
        }
        slightlyBehind = newPostbox(b -> b.clock(Clock.offset(Clock.systemUTC(), Duration.ofMillis(-5))));
        farBehind = newPostbox(b -> b.clock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-2))));
    }

    /** Locks the aggregate's row, bumps its seq and writes the event carrying it; returns the new seq. */
    private static int writeLocked(Connection c, Postbox writer, String aggregate, String eventNo) throws SQLException {
        int seq;
        try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM agg WHERE id = ? FOR UPDATE")) {
            ps.setString(1, aggregate);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                seq = rs.getInt(1) + 1;
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE agg SET seq = seq + 1 WHERE id = ?")) {
            ps.setString(1, aggregate);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        WriteResult r = writer.outbox().write(c, OutboxEvent.builder().eventNo(eventNo).aggregate("AGG", aggregate)
                .eventType("AGG_CHANGED").channel("MQ").topic("agg.event").payload("{\"seq\":" + seq + "}").build());
        assertThat(r.inserted()).isTrue();
        return seq;
    }

    private static int seqOf(OutboxRecord r) {
        Matcher m = SEQ.matcher(r.payload());
        assertThat(m.find()).as("seq in " + r.payload()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private Relay relay(Publisher publisher) {
        return postbox.relay(publisher).instanceId("relay-1").batchSize(500).poolSize(2).build();
    }

    @Test
    final void writersWithClocksApartPublishEveryAggregateInCommitOrder() throws Exception {
        int threadsPerWriter = 3;
        int transactionsPerThread = 60;
        Set<String> rolledBack = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerWriter);
        CyclicBarrier start = new CyclicBarrier(2 * threadsPerWriter);
        try {
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < 2 * threadsPerWriter; t++) {
                Postbox writer = t % 2 == 0 ? slightlyBehind : farBehind;
                String name = (t % 2 == 0 ? "near" : "far") + t;
                threads.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < transactionsPerThread; i++) {
                        String aggregate = "AGG-" + random.nextInt(AGGREGATES);
                        String eventNo = aggregate + ":" + name + ":" + i;
                        boolean rollBack = random.nextInt(6) == 0;
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            writeLocked(c, writer, aggregate, eventNo);
                            if (rollBack) {
                                c.rollback();
                                rolledBack.add(eventNo);
                            } else {
                                c.commit();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : threads) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(rolledBack).as("the run rolled some transactions back").isNotEmpty();

        Receiver receiver = new Receiver();
        try (Relay relay = relay(RelayContract.to(receiver))) {
            RelayContract.drain(relay);
        }
        Map<String, List<Integer>> published = new TreeMap<>();
        for (OutboxRecord r : receiver.deliveries) {
            assertThat(rolledBack).as("a rolled-back event was published").doesNotContain(r.eventNo());
            published.computeIfAbsent(r.aggregateId(), k -> new ArrayList<>()).add(seqOf(r));
        }
        assertThat(receiver.duplicates()).isZero();
        for (int i = 0; i < AGGREGATES; i++) {
            String aggregate = "AGG-" + i;
            int last = (int) queryLong("SELECT seq FROM agg WHERE id = ?", aggregate);
            List<Integer> expected = new ArrayList<>();
            for (int s = 1; s <= last; s++) {
                expected.add(s);
            }
            assertThat(published.getOrDefault(aggregate, List.of()))
                    .as("seqs of %s in publication order: strictly increasing and complete", aggregate)
                    .containsExactlyElementsOf(expected);
        }
    }

    /** The writer whose clock is behind commits second; {@code headOutcome} is what the publisher answers for the first event. */
    private void laterEventOfTheSlowClockWaitsForItsHead(PublishResult headOutcome, OutboxStatus headStatus) throws Exception {
        inTx(c -> writeLocked(c, slightlyBehind, "AGG-0", "AGG-0:first"));
        inTx(c -> writeLocked(c, farBehind, "AGG-0", "AGG-0:second"));
        Receiver receiver = new Receiver();
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        Publisher publisher = RelayContract.failing(r -> r.eventNo().equals("AGG-0:first") && failedOnce.add(r.eventNo())
                ? headOutcome : PublishResult.published(), receiver);
        try (Relay relay = relay(publisher)) {
            RelayContract.drain(relay);
            assertThat(postbox.queries().outbox().byEventNo("AGG-0:first").orElseThrow().status()).isEqualTo(headStatus);
            OutboxRecord second = postbox.queries().outbox().byEventNo("AGG-0:second").orElseThrow();
            assertThat(second.status()).as("held back by its aggregate's earlier commit").isEqualTo(OutboxStatus.PENDING);
            assertThat(receiver.deliveries).as("nothing of AGG-0 overtook its head").isEmpty();

            if (headStatus == OutboxStatus.DEAD) {
                clock.advance(Duration.ofDays(1));
                RelayContract.drain(relay);
                assertThat(receiver.deliveries).as("a DEAD head holds its aggregate until a person acts").isEmpty();
                assertThat(postbox.admin().retry("AGG-0:first", "ops@example.com", "fixed downstream")).isTrue();
            } else {
                clock.advance(RetryPolicy.DEFAULT_CAP);
            }
            RelayContract.drain(relay);
        }
        assertThat(receiver.deliveries).extracting(OutboxRecord::eventNo).containsExactly("AGG-0:first", "AGG-0:second");
    }

    @Test
    final void aFailedHeadHoldsBackTheLaterCommitOfTheWriterWhoseClockIsBehind() throws Exception {
        laterEventOfTheSlowClockWaitsForItsHead(PublishResult.retry("broker unavailable"), OutboxStatus.FAILED);
    }

    @Test
    final void aDeadHeadHoldsBackTheLaterCommitOfTheWriterWhoseClockIsBehind() throws Exception {
        laterEventOfTheSlowClockWaitsForItsHead(PublishResult.dead("rejected"), OutboxStatus.DEAD);
    }

    @Test
    final void twoInstancesWritingAtOnceNeverClashAndGetPositiveIds() throws Exception {
        // both on the suite's stopped clock: what two processes with the same node id were before ids moved to the database
        Postbox one = newPostbox(b -> { });
        Postbox two = newPostbox(b -> { });
        int threads = 8;
        int transactions = 25;
        Set<Long> outboxIds = ConcurrentHashMap.newKeySet();
        Set<Long> messageIds = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Postbox writer = t % 2 == 0 ? one : two;
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < transactions; i++) {
                        String key = "T" + thread + "-" + i;
                        inTx(c -> {
                            WriteResult e = writer.outbox().write(c, OutboxEvent.builder().eventNo("E-" + key)
                                    .aggregate("ORDER", key).eventType("X").channel("MQ").payload("{}").build());
                            List<WriteResult> batch = writer.outbox().writeAll(c, List.of(
                                    OutboxEvent.builder().eventNo("B1-" + key).aggregate("ORDER", key).eventType("X")
                                            .channel("MQ").payload("{}").build(),
                                    OutboxEvent.builder().eventNo("B2-" + key).aggregate("ORDER", key).eventType("X")
                                            .channel("MQ").payload("{}").build()));
                            WriteResult m = writer.messages().create(c, MessageEvent.builder().eventNo("M-" + key)
                                    .eventType("X").biz("ORDER", key).payload("{}").build());
                            assertThat(writer.inbox().once(c, "stock", "E-" + key, () -> { }).ran()).isTrue();
                            assertThat(writer.compensations().once(c, "ORDER", key, "CANCEL", conn -> "done").outcome())
                                    .isEqualTo(dev.postbox.compensation.CompensationResult.Outcome.DONE);
                            outboxIds.add(e.id());
                            batch.forEach(r -> outboxIds.add(r.id()));
                            messageIds.add(m.id());
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        int total = threads * transactions;
        assertThat(outboxIds).as("every transaction committed, each id its own").hasSize(3 * total).allMatch(id -> id > 0);
        assertThat(messageIds).hasSize(total).allMatch(id -> id > 0);
        for (String table : new String[] {postbox.tables().outbox(), postbox.tables().message(),
                postbox.tables().consumeLog(), postbox.tables().compensationLog()}) {
            assertThat(queryLong("SELECT COUNT(DISTINCT id) FROM " + table)).as(table).isEqualTo(count(table));
            assertThat(queryLong("SELECT MIN(id) FROM " + table)).as(table).isPositive();
        }
        assertThat(count(postbox.tables().consumeLog())).isEqualTo(total);
        assertThat(count(postbox.tables().compensationLog())).isEqualTo(total);
        for (Long id : outboxIds) {
            assertThat(queryLong("SELECT COUNT(*) FROM " + postbox.tables().outbox() + " WHERE id = ?", id))
                    .as("the returned id is the stored one").isEqualTo(1);
        }
    }

    @Test
    final void writeAllReturnsTheIdTheDatabaseGaveEachRow() throws Exception {
        inTx(c -> postbox.outbox().write(c, OutboxEvent.builder().eventNo("W-7").aggregate("ORDER", "W")
                .eventType("X").channel("MQ").payload("{}").build()));
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 1_234; i++) {
            events.add(OutboxEvent.builder().eventNo("W-" + (i == 900 ? 7 : i)).aggregate("ORDER", "W" + (i % 13))
                    .eventType("X").channel("MQ").payload("{\"i\":" + i + "}").build());
        }
        List<WriteResult> results = inTx(c -> postbox.outbox().writeAll(c, events));
        assertThat(results.get(7).duplicate()).isTrue();
        assertThat(results.get(900).duplicate()).isTrue();
        List<Long> inserted = new ArrayList<>();
        for (WriteResult r : results) {
            if (r.inserted()) {
                assertThat(r.id()).as(r.eventNo()).isEqualTo(postbox.queries().outbox().byEventNo(r.eventNo()).orElseThrow().id());
                inserted.add(r.id());
            } else {
                assertThat(r.id()).isZero();
            }
        }
        assertThat(inserted).hasSize(1_232).doesNotHaveDuplicates().isSorted();
    }
}
