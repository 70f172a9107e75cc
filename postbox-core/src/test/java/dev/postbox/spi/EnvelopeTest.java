package dev.postbox.spi;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvelopeTest {

    private static final Instant CREATED = Instant.parse("2026-03-08T09:59:59.123Z");

    private static OutboxRecord record(Map<String, String> headers) {
        return new OutboxRecord(7L, "ORDER_CREATED:42", "ORDER", "42", "ORDER_CREATED", 2, "order-service", "MQ",
                "order.event", "order.created", "{\"orderNo\":\"42\", \"amount\": 1.50}", headers, OutboxStatus.PUBLISHING,
                0, 5, null, "relay-1", CREATED, CREATED, null, null, "trace-9", null, 1, CREATED, CREATED);
    }

    @Test
    void everyFieldRoundTripsThroughFlatHeaders() {
        Map<String, String> own = new LinkedHashMap<>();
        own.put("tenantId", "t1");
        own.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        Envelope e = Envelope.of(record(own));
        assertThat(e.traceparent()).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(e.headers()).containsExactly(Map.entry("tenantId", "t1"));

        Map<String, String> wire = e.toHeaders();
        assertThat(wire).containsEntry(Envelope.EVENT_NO, "ORDER_CREATED:42").containsEntry(Envelope.EVENT_VERSION, "2")
                .containsEntry(Envelope.CREATE_TIME, "2026-03-08T09:59:59.123Z").containsEntry("tenantId", "t1")
                .containsEntry("traceparent", e.traceparent());
        assertThat(Envelope.fromHeaders(wire, e.payload())).isEqualTo(e);
    }

    @Test
    void headerNamesAreMatchedWhateverTheirCase() {
        Envelope e = Envelope.of(record(Map.of("tenantId", "t1")));
        Map<String, String> upper = new LinkedHashMap<>();
        e.toHeaders().forEach((k, v) -> upper.put(k.startsWith("postbox-") ? k.toUpperCase() : k, v));
        assertThat(Envelope.fromHeaders(upper, e.payload())).isEqualTo(e);
    }

    @Test
    void aMissingOrMalformedHeaderIsNamed() {
        Map<String, String> wire = new LinkedHashMap<>(Envelope.of(record(Map.of())).toHeaders());
        wire.remove(Envelope.EVENT_NO);
        assertThatThrownBy(() -> Envelope.fromHeaders(wire, "{}")).isInstanceOf(ValidationException.class)
                .hasMessageContaining(Envelope.EVENT_NO);
        Map<String, String> badVersion = new LinkedHashMap<>(Envelope.of(record(Map.of())).toHeaders());
        badVersion.put(Envelope.EVENT_VERSION, "two");
        assertThatThrownBy(() -> Envelope.fromHeaders(badVersion, "{}")).hasMessageContaining(Envelope.EVENT_VERSION)
                .hasMessageContaining("two");
        Map<String, String> ok = Envelope.of(record(Map.of())).toHeaders();
        assertThatThrownBy(() -> Envelope.fromHeaders(ok, null)).hasMessageContaining("payload");
    }
}
