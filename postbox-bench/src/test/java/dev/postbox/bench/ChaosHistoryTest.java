package dev.postbox.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The history checker on hand-made histories: each kind of violation is counted, and only it. */
class ChaosHistoryTest {

    private final Map<String, ChaosHistory.Row> committed = new LinkedHashMap<>();
    private final Map<String, Long> business = new LinkedHashMap<>();
    private final List<DeliveryLog.Delivery> log = new ArrayList<>();

    private void commit(String eventNo, String aggregate, long seq, int status) {
        committed.put(eventNo, new ChaosHistory.Row(new ChaosPayload(aggregate, seq, 1, false), status, 0));
        business.merge(aggregate, seq, Math::max);
    }

    private void deliver(String eventNo, String aggregate, long seq, boolean rollback) {
        log.add(new DeliveryLog.Delivery(log.size(), eventNo, new ChaosPayload(aggregate, seq, 1, rollback)));
    }

    private ChaosHistory.Verdict check() {
        return ChaosHistory.check(committed, business, log);
    }

    @Test
    void aCleanHistoryHasNoViolation() {
        commit("e1", "A", 1, ChaosHistory.PUBLISHED);
        commit("e2", "A", 2, ChaosHistory.PUBLISHED);
        commit("e3", "B", 1, ChaosHistory.PUBLISHED);
        deliver("e3", "B", 1, false);
        deliver("e1", "A", 1, false);
        deliver("e2", "A", 2, false);
        ChaosHistory.Verdict v = check();
        assertThat(v.committed()).isEqualTo(3);
        assertThat(v.delivered()).isEqualTo(3);
        assertThat(List.of(v.lost(), v.reordered(), v.duplicates(), v.dead(), v.unfinished(), v.rolledBackDelivered(),
                v.mismatched(), v.seqGaps())).containsOnly(0L);
    }

    @Test
    void aFirstDeliveryBelowAnEarlierSeqOfItsAggregateIsReordered() {
        commit("e1", "A", 1, ChaosHistory.PUBLISHED);
        commit("e2", "A", 2, ChaosHistory.PUBLISHED);
        commit("e3", "A", 3, ChaosHistory.PUBLISHED);
        commit("f1", "B", 1, ChaosHistory.PUBLISHED);
        deliver("e2", "A", 2, false);
        deliver("f1", "B", 1, false);
        deliver("e1", "A", 1, false);
        deliver("e3", "A", 3, false);
        ChaosHistory.Verdict v = check();
        assertThat(v.reordered()).isEqualTo(1);
        assertThat(v.reorderedAggregates()).isEqualTo(1);
        assertThat(v.examples()).anyMatch(e -> e.startsWith("REORDERED A: seq 1"));
    }

    @Test
    void aRepeatedDeliveryIsADuplicateAndDoesNotCountAsReordered() {
        commit("e1", "A", 1, ChaosHistory.PUBLISHED);
        commit("e2", "A", 2, ChaosHistory.PUBLISHED);
        deliver("e1", "A", 1, false);
        deliver("e2", "A", 2, false);
        deliver("e1", "A", 1, false);
        ChaosHistory.Verdict v = check();
        assertThat(v.duplicates()).isEqualTo(1);
        assertThat(v.reordered()).isZero();
        assertThat(v.delivered()).isEqualTo(2);
    }

    @Test
    void aCommittedEventNeverDeliveredIsLostWhateverItsStatus() {
        commit("e1", "A", 1, ChaosHistory.DEAD);
        commit("e2", "A", 2, 0);
        commit("e3", "B", 1, ChaosHistory.PUBLISHED);
        deliver("e3", "B", 1, false);
        ChaosHistory.Verdict v = check();
        assertThat(v.lost()).isEqualTo(2);
        assertThat(v.dead()).isEqualTo(1);
        assertThat(v.unfinished()).isEqualTo(1);
    }

    @Test
    void aDeliveredEventThatDidNotCommitIsRolledBackDelivered() {
        commit("e1", "A", 1, ChaosHistory.PUBLISHED);
        deliver("e1", "A", 1, false);
        deliver("r1", "A", 2, true);    // marked: its transaction was rolled back on purpose
        deliver("x1", "A", 3, false);   // no committed row has this event_no
        ChaosHistory.Verdict v = check();
        assertThat(v.rolledBackDelivered()).isEqualTo(2);
        assertThat(v.delivered()).isEqualTo(1);
        assertThat(v.reordered()).isZero();
    }

    @Test
    void aDeliveryWhosePayloadIsNotItsRowsIsMismatchedAndMissingSeqsAreGaps() {
        commit("e1", "A", 1, ChaosHistory.PUBLISHED);
        commit("e3", "A", 3, ChaosHistory.PUBLISHED); // seq 2 of A never committed although the business row says 3
        deliver("e1", "A", 7, false);
        deliver("e3", "A", 3, false);
        ChaosHistory.Verdict v = check();
        assertThat(v.mismatched()).isEqualTo(1);
        assertThat(v.seqGaps()).isEqualTo(1);
    }

    @Test
    void theDeliveryLogReadsBackItsLinesInOrderAndSkipsALineCutShort(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("deliveries.log");
        try (DeliveryLog out = DeliveryLog.open(file)) {
            out.append(new DeliveryLog.Delivery(10, "e1", new ChaosPayload("A", 1, 1, false)));
            out.append(new DeliveryLog.Delivery(11, "r1", new ChaosPayload("B", 2, 2, true)));
        }
        Files.writeString(file, "12\te2\tA\t2", StandardCharsets.UTF_8, StandardOpenOption.APPEND); // a kill mid-line
        assertThat(DeliveryLog.read(file)).containsExactly(
                new DeliveryLog.Delivery(10, "e1", new ChaosPayload("A", 1, 1, false)),
                new DeliveryLog.Delivery(11, "r1", new ChaosPayload("B", 2, 2, true)));
    }

    @Test
    void aPayloadIsReadBackWhateverTheDatabaseDidToItsKeyOrderAndSpacing() {
        ChaosPayload p = new ChaosPayload("A7", 42, 2, true);
        assertThat(ChaosPayload.parse(p.json())).isEqualTo(p);
        assertThat(ChaosPayload.parse("{\"seq\": 42, \"rollback\": true, \"producer\": 2, \"aggregate\": \"A7\"}")).isEqualTo(p);
    }

    @Test
    void killToFlowingRunsUntilEveryEventTheKilledRelayHeldIsDeliveredAgain() {
        deliver("e1", "A", 1, false);   // t=0: sent by the relay about to be killed
        deliver("x", "B", 1, false);    // t=1
        deliver("e2", "A", 2, false);   // t=2
        deliver("e1", "A", 1, false);   // t=3: sent again by the relay that took the lease over
        KillToFlowing f = KillToFlowing.of(List.of(new KillToFlowing.Kill(1, "relay-0-1", List.of("e1", "e2")),
                new KillToFlowing.Kill(2, "relay-1-1", List.of()),            // held nothing
                new KillToFlowing.Kill(2, "relay-0-2", null)), log);         // database down: not measured
        assertThat(f).isEqualTo(new KillToFlowing(1, 2, 2));
    }
}
