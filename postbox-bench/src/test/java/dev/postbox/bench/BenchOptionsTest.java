package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Option validation of drain's --analyze and --tracing, write's and server's options: bad values fail before any database work, by
 * name.
 */
class BenchOptionsTest {

    private static Options parse(Command c, String... args) {
        Options o = Options.parse(List.of(args), c.defaults());
        c.validate(o);
        return o;
    }

    @Test
    void drainAnalyzesNothingByDefault() {
        Options o = parse(new DrainBench());
        assertThat(o.string("analyze")).isEqualTo("off");
        assertThat(DrainBench.compare(o)).isFalse();
        assertThat(DrainBench.compare(parse(new DrainBench(), "--analyze", "compare"))).isTrue();
    }

    @Test
    void drainRefusesAnotherAnalyzeMode() {
        assertThatThrownBy(() -> parse(new DrainBench(), "--analyze", "on")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--analyze").hasMessageContaining("'on'");
    }

    @Test
    void drainTracesNothingByDefault() {
        assertThat(DrainBench.tracing(parse(new DrainBench()))).isEqualTo(DrainBench.Tracing.OFF);
        assertThat(DrainBench.tracing(parse(new DrainBench(), "--tracing", "on"))).isEqualTo(DrainBench.Tracing.ON);
        assertThat(DrainBench.tracing(parse(new DrainBench(), "--tracing", "compare"))).isEqualTo(DrainBench.Tracing.COMPARE);
    }

    @Test
    void drainRefusesAnotherTracingMode() {
        assertThatThrownBy(() -> parse(new DrainBench(), "--tracing", "true")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--tracing").hasMessageContaining("'true'");
    }

    @Test
    void writeTakesAListOfConcurrencies() {
        Options o = parse(new WriteBench(), "--producers", "16, 64,4");
        assertThat(o.positiveIntList("producers", WriteBench.MAX_PRODUCERS)).containsExactly(16, 64, 4);
        assertThat(new WriteBench().poolSize(o)).isEqualTo(64);
        assertThat(new WriteBench().notifications(o)).as("the context's Postbox writes no NOTIFY").isFalse();
    }

    @Test
    void writeRefusesBadConcurrencies() {
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "16,x")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--producers");
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "0")).isInstanceOf(UsageException.class)
                .hasMessageContaining("between 1 and " + WriteBench.MAX_PRODUCERS);
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "300")).isInstanceOf(UsageException.class)
                .hasMessageContaining("(was 300)");
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "16,16")).isInstanceOf(UsageException.class)
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "16,")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--producers");
    }

    @Test
    void writeNeedsAnAggregatePerProducerAndOnOrOffForTheRelay() {
        assertThatThrownBy(() -> parse(new WriteBench(), "--producers", "64", "--aggregates", "10"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--aggregates (10)");
        assertThatThrownBy(() -> parse(new WriteBench(), "--kind", "inbox")).isInstanceOf(UsageException.class)
                .hasMessage("option --kind must be outbox or message (was 'inbox')");
        assertThatThrownBy(() -> parse(new WriteBench(), "--kind", "message", "--relay", "on"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--relay on needs --kind outbox");
        assertThat(parse(new WriteBench(), "--kind", "message").string("kind")).isEqualTo("message");
        assertThatThrownBy(() -> parse(new WriteBench(), "--relay", "maybe")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--relay");
    }

    @Test
    void writeResultKeysCarryTheConcurrencyAndSayNaForASkippedVariant() {
        java.util.Map<WriteBench.Variant, WriteBench.Measured> m = new java.util.LinkedHashMap<>();
        m.put(WriteBench.Variant.PLAIN, new WriteBench.Measured(1000, 0, "", 2.5, "1.00"));
        m.put(WriteBench.Variant.EVENT, new WriteBench.Measured(900, 0, "", 3.0, "1.20"));
        String keys = WriteBench.keys(16, m);
        assertThat(keys).contains(" p16_plain_tps=1000", " p16_event_tps=900", " p16_notify_tps=n/a",
                " p16_event_vs_plain=0.90", " p16_notify_vs_off=n/a", " p16_event_commit_p99_ms=3.00");
    }

    @Test
    void serverTakesAListOfReplicaCountsOrOff() {
        assertThat(ServerBench.replicas(parse(new ServerBench()))).containsExactly(1, 2, 3);
        assertThat(ServerBench.replicas(parse(new ServerBench(), "--replicas", "off"))).isEmpty();
        assertThatThrownBy(() -> parse(new ServerBench(), "--replicas", "0")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--replicas");
        assertThatThrownBy(() -> parse(new ServerBench(), "--replicas", "9")).isInstanceOf(UsageException.class)
                .hasMessageContaining("between 1 and " + ServerBench.MAX_REPLICAS);
        assertThatThrownBy(() -> parse(new ServerBench(), "--batch", "6000")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--batch");
    }

    @Test
    void serverTakesNoDatabaseOption() {
        assertThatThrownBy(() -> parse(new ServerBench(), "--db", "postgres")).isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown option --db");
    }
}
