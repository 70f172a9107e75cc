package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short retention run of CI on the shared PostgreSQL: {@code scripts/bench retention --history 20000
 * --seconds 3} removes every history row and no live event while producers and a relay run, and its RESULT
 * line parses.
 */
class PostgresRetentionBenchTest {

    @Test
    void cleanupRemovesTheWholeHistoryAndNoLiveEventWhileProducersRun() throws Exception {
        Command.Outcome outcome = Bench.run(new RetentionBench(), List.of("--db", "postgres", "--history", "20000",
                "--seconds", "3", "--producers", "2", "--aggregates", "20"));
        Map<String, String> r = ChaosContract.fields(outcome.result());

        assertThat(r).as(outcome.result()).containsEntry("scenario", "retention").containsEntry("db", "postgres")
                .containsEntry("strategy", "delete").containsEntry("history", "20000").containsEntry("removed", "20000");
        assertThat(Double.parseDouble(r.get("cleanup_rows_per_s"))).isPositive();
        for (String key : List.of("p99_ms_baseline", "p99_ms_cleanup", "p99_ratio", "drain_eps_baseline",
                "drain_eps_cleanup", "drain_ratio", "cpu_ms_per_1k")) {
            assertThat(Double.parseDouble(r.get(key))).as(key).isPositive();
        }
        assertThat(outcome.ok()).as(outcome.result()).isTrue();
    }
}
