package dev.postbox.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The history checker: the sink's durable log against the rows that committed. Pure logic, no I/O.
 * <ul>
 * <li><b>lost</b>: committed, never delivered (whatever its status; a DEAD row is counted here and in dead);
 * <li><b>reordered</b>: first deliveries whose seq is lower than a seq of the same aggregate delivered
 *     before (the sink's log is in arrival order, and an ordered relay sends an aggregate's next event only
 *     after the previous one was acknowledged, so arrival order is publish order);
 * <li><b>duplicates</b>: deliveries beyond the first of an event;
 * <li><b>rolled-back delivered</b>: delivered events that did not commit (the payload's rollback mark, or an
 *     event_no no committed row has);
 * <li><b>mismatched</b>: a delivery whose payload differs from its committed row's;
 * <li><b>seq gaps</b>: aggregates whose committed seqs are not exactly 1..the business row's seq (a check of
 *     the run itself: the row lock serialized the producers).
 * </ul>
 */
final class ChaosHistory {

    /** Outbox status codes (seed 000). */
    static final int PUBLISHED = 2;
    static final int DEAD = 5;
    static final int CANCELLED = 4;
    private static final int EXAMPLES = 5;

    /** A committed outbox row of the run. */
    record Row(ChaosPayload payload, int status, int retryCount) {
    }

    /** What the checker found. */
    record Verdict(long committed, long deliveries, long delivered, long lost, long reordered,
                   long reorderedAggregates, long duplicates, long dead, long unfinished, long rolledBackDelivered,
                   long mismatched, long seqGaps, List<String> examples) {
    }

    private ChaosHistory() {
    }

    static Verdict check(Map<String, Row> committed, Map<String, Long> businessSeq, List<DeliveryLog.Delivery> log) {
        List<String> examples = new ArrayList<>();
        Map<String, Long> first = new HashMap<>();
        Map<String, long[]> highest = new HashMap<>(); // aggregate -> {seq, index of its delivery}
        Set<String> reorderedAggregates = new HashSet<>();
        Set<String> rolledBack = new HashSet<>();
        long reordered = 0;
        long mismatched = 0;
        for (DeliveryLog.Delivery d : log) {
            if (first.containsKey(d.eventNo())) {
                continue;
            }
            first.put(d.eventNo(), d.receivedMs());
            Row row = committed.get(d.eventNo());
            if (row == null || d.payload().rollback()) {
                rolledBack.add(d.eventNo());
                example(examples, "ROLLED_BACK_DELIVERED " + d.eventNo() + " " + d.payload());
                continue;
            }
            if (!row.payload().equals(d.payload())) {
                mismatched++;
                example(examples, "MISMATCH " + d.eventNo() + " delivered " + d.payload() + " committed " + row.payload());
            }
            String aggregate = row.payload().aggregate();
            long seq = row.payload().seq();
            long[] top = highest.computeIfAbsent(aggregate, k -> new long[] {0});
            if (seq < top[0]) {
                reordered++;
                reorderedAggregates.add(aggregate);
                example(examples, "REORDERED " + aggregate + ": seq " + seq + " (" + d.eventNo() + ", producer "
                        + row.payload().producer() + ") delivered after seq " + top[0]);
            } else {
                top[0] = seq;
            }
        }
        long lost = 0;
        long dead = 0;
        long unfinished = 0;
        Map<String, TreeSet<Long>> seqs = new HashMap<>();
        for (Map.Entry<String, Row> e : committed.entrySet()) {
            Row row = e.getValue();
            seqs.computeIfAbsent(row.payload().aggregate(), k -> new TreeSet<>()).add(row.payload().seq());
            if (row.status() == DEAD) {
                dead++;
            } else if (row.status() != PUBLISHED && row.status() != CANCELLED) {
                unfinished++;
            }
            if (!first.containsKey(e.getKey())) {
                lost++;
                example(examples, "LOST " + e.getKey() + " " + row.payload() + " status=" + row.status()
                        + " retry_count=" + row.retryCount());
            }
        }
        long gaps = 0;
        for (Map.Entry<String, Long> e : businessSeq.entrySet()) {
            TreeSet<Long> s = seqs.getOrDefault(e.getKey(), new TreeSet<>());
            long n = e.getValue();
            if (s.size() != n || (n > 0 && (s.first() != 1 || s.last() != n))) {
                gaps++;
                example(examples, "SEQ_GAP " + e.getKey() + ": business seq " + n + ", committed events " + s.size());
            }
        }
        return new Verdict(committed.size(), log.size(), first.size() - rolledBack.size(), lost, reordered,
                reorderedAggregates.size(), log.size() - first.size(), dead, unfinished, rolledBack.size(), mismatched,
                gaps, examples);
    }

    /** Keeps the first {@value #EXAMPLES} examples of each kind (the line's first word). */
    private static void example(List<String> examples, String line) {
        String kind = line.substring(0, line.indexOf(' ') + 1);
        if (examples.stream().filter(x -> x.startsWith(kind)).count() < EXAMPLES) {
            examples.add(line);
        }
    }
}
