package dev.postbox.bench;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker sink's compact memory of what it sent: deliveries read back get the verdicts the full rows gave. */
class SentLogTest {

    private static OutboxRecord record(long id, long seq, String aggregate) {
        return new OutboxRecord(id, EventWriter.EVENT_NO_PREFIX + seq, "ORDER", aggregate, "ORDER_CHANGED", 1, "bench",
                "MQ", EventWriter.TOPIC, null, "{}", Map.of(), OutboxStatus.PUBLISHING, 0, 5, null, null, null, null,
                null, null, null, null, 0, Instant.EPOCH, Instant.EPOCH);
    }

    @Test
    void aDeliveryReadBackIsCheckedWithTheIdAndAggregateOfTheRowSent() {
        SentLog sent = new SentLog();
        sent.record(record(10, 0, "A0"));
        sent.record(record(11, 1, "A0"));
        sent.record(record(12, SentLog.PAGE + 5L, "A1"));
        Receiver r = new Receiver();
        assertThat(sent.deliver("E-1", r)).isTrue();
        assertThat(sent.deliver("E-0", r)).isTrue(); // id 10 after 11 of the same aggregate
        assertThat(sent.deliver("E-" + (SentLog.PAGE + 5L), r)).isTrue(); // another aggregate, another page
        assertThat(sent.deliver("E-1", r)).isTrue(); // read back twice
        assertThat(r.distinct()).isEqualTo(3);
        assertThat(r.orderViolations()).isEqualTo(1);
        assertThat(r.duplicates()).isEqualTo(1);
    }

    @Test
    void whatWasNeverSentOrIsNotTheBenchsIsNotHandedOver() {
        SentLog sent = new SentLog();
        sent.record(record(10, 0, "A0"));
        Receiver r = new Receiver();
        assertThat(sent.deliver("E-2", r)).isFalse();
        assertThat(sent.deliver("E-" + (5L * SentLog.PAGE), r)).isFalse();
        assertThat(sent.deliver("ORDER_CREATED:1", r)).isFalse();
        assertThat(sent.deliver(null, r)).isFalse();
        assertThat(r.distinct()).isZero();
        assertThat(r.duplicates()).isZero();
    }
}
