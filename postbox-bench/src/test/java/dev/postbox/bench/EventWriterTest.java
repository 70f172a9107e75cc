package dev.postbox.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.postbox.outbox.OutboxEvent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench's event is the size and shape of a real one, different for every seq, and keeps its event_no. */
class EventWriterTest {

    private static final JsonFactory JSON = new JsonFactory();

    static void assertValidJson(String json) throws Exception {
        try (JsonParser p = JSON.createParser(json)) {
            assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            p.skipChildren();
            assertThat(p.nextToken()).as("nothing after the object").isNull();
        }
    }

    @Test
    void theEventCarriesAnOrderOfAbout400BytesTwoHeadersATraceIdAndARoutingKey() throws Exception {
        Set<String> payloads = new HashSet<>();
        Set<String> traces = new HashSet<>();
        for (long seq = 0; seq < 20_000; seq += 1) {
            OutboxEvent e = EventWriter.event(seq, "A" + (seq % 1000));
            int bytes = e.payload().getBytes(StandardCharsets.UTF_8).length;
            assertThat(bytes).as("payload bytes of seq %d", seq).isBetween(340, 480);
            if (seq % 500 == 0) {
                assertValidJson(e.payload());
                assertThat(e.payload()).contains("\"seq\":" + seq + ",").contains("\"orderId\":\"A" + (seq % 1000) + "\"");
            }
            assertThat(e.eventNo()).isEqualTo("E-" + seq);
            assertThat(EventWriter.seq(e.eventNo())).isEqualTo(seq);
            assertThat(e.headers()).hasSize(2).containsKeys("tenant-id", "schema");
            assertThat(e.traceId()).hasSize(32).matches("[0-9a-f]{32}");
            assertThat(e.routingKey()).matches("order\\.[a-z]+\\.changed");
            assertThat(e.topic()).isEqualTo(EventWriter.TOPIC);
            payloads.add(e.payload());
            traces.add(e.traceId());
        }
        assertThat(payloads).as("no two payloads alike").hasSize(20_000);
        assertThat(traces).as("no two trace ids alike").hasSize(20_000);
    }

    @Test
    void aTracedEventAddsATraceparentOfASampledTraceOfItsOwnAndTakesItsTraceId() {
        Set<String> traces = new HashSet<>();
        Set<String> spans = new HashSet<>();
        for (long seq = 0; seq < 2_000; seq++) {
            OutboxEvent plain = EventWriter.event(seq, "A" + (seq % 1000));
            OutboxEvent traced = EventWriter.event(seq, "A" + (seq % 1000), TracedPostbox.newCreateContext());
            String traceparent = traced.headers().get("traceparent");
            assertThat(traced.headers().keySet()).containsExactly("tenant-id", "schema", "traceparent");
            assertThat(traced.headers()).containsAllEntriesOf(plain.headers());
            assertThat(traceparent).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
            assertThat(Integer.parseInt(traceparent.substring(53), 16) & 1).as("sampled").isEqualTo(1);
            assertThat(traced.traceId()).isEqualTo(traceparent.substring(3, 35));
            assertThat(traced.payload()).isEqualTo(plain.payload());
            traces.add(traced.traceId());
            spans.add(traceparent.substring(36, 52));
        }
        assertThat(traces).as("no two trace ids alike").hasSize(2_000);
        assertThat(spans).as("no two span ids alike").hasSize(2_000);
    }

    @Test
    void theSameSeqGivesTheSameEvent() {
        assertThat(EventWriter.event(42, "A7")).isEqualTo(EventWriter.event(42, "A7"));
    }

    @Test
    void anAggregateKeepsOneRoutingKey() {
        assertThat(EventWriter.event(1, "A7").routingKey()).isEqualTo(EventWriter.event(9_999, "A7").routingKey());
    }
}
