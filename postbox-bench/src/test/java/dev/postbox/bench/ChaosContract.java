package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short chaos run of CI, per database: {@code scripts/bench chaos} with 4 relay kills, a database crash
 * and a sink outage in a 25-second window, asserting the checker's verdict from the RESULT line: the
 * targets of ordered mode (lost 0, reordered 0, rolled-back delivered 0, duplicates at most kills × batch)
 * and that the faults really happened. Bound per database in a few lines.
 */
abstract class ChaosContract {

    static final int KILLS = 4;

    /** postgres or mariadb. */
    abstract String db();

    @Test
    final void relaysKilledDatabaseCrashedAndSinkDownLoseNothingReorderNothingAndDeliverNoRollback() throws Exception {
        Command.Outcome outcome = Bench.run(new ChaosBench(), List.of("--db", db(), "--kills", String.valueOf(KILLS),
                "--producers", "2", "--relays", "2", "--aggregates", "20", "--seconds", "25", "--rate", "50",
                "--skew-ms", "5,-40", "--seed", "11", "--outage-ms", "3000", "--db-down-ms", "1000",
                "--drain-timeout", "60"));
        Map<String, String> r = fields(outcome.result());

        // the run is what it claims to be: faults happened, events committed and some rolled back
        assertThat(r).containsEntry("scenario", "chaos").containsEntry("db", db())
                .containsEntry("kills", String.valueOf(KILLS)).containsEntry("db_crashes", "1")
                .containsEntry("sink_outages", "1");
        assertThat(Long.parseLong(r.get("committed"))).isPositive();
        assertThat(Long.parseLong(r.get("rolled_back"))).isPositive();
        assertThat(Long.parseLong(r.get("drain_ms"))).as("drained").isNotNegative();
        assertThat(Double.parseDouble(r.get("cpu_ms_per_1k"))).as("CPU of the run's processes per 1,000 events").isPositive();
        // the promises
        assertThat(r).as(outcome.result()).containsEntry("lost", "0").containsEntry("reordered", "0")
                .containsEntry("rolled_back_delivered", "0");
        assertThat(Long.parseLong(r.get("duplicates"))).as(outcome.result())
                .isLessThanOrEqualTo(Long.parseLong(r.get("duplicates_max")));
        assertThat(outcome.ok()).as(outcome.result()).isTrue();
    }

    /** The {@code key=value} fields of a RESULT line. */
    static Map<String, String> fields(String result) {
        assertThat(result).startsWith("RESULT ");
        Map<String, String> out = new HashMap<>();
        for (String kv : result.substring("RESULT ".length()).split(" ")) {
            int eq = kv.indexOf('=');
            out.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return out;
    }
}
