package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short search run of CI on the shared PostgreSQL: {@code scripts/bench search --rows 20000 --searches 5}
 * measures every qualifier, finds rows for the ones whose values exist in the table, and its RESULT line parses.
 */
class PostgresSearchBenchTest {

    @Test
    void everyQualifierIsMeasuredAndFindsWhatThePreloadWrote() throws Exception {
        Command.Outcome outcome = Bench.run(new SearchBench(), List.of("--db", "postgres", "--rows", "20000",
                "--searches", "5", "--target-ms", "5000"));
        Map<String, String> r = ChaosContract.fields(outcome.result());

        assertThat(r).as(outcome.result()).containsEntry("scenario", "search").containsEntry("rows", "20000")
                .containsEntry("pass", "true");
        for (String key : List.of("event_no", "order_id", "aggregate", "trace", "status_dead", "status_failed_topic",
                "type", "type_day", "topic", "topic_day", "created_hour", "dead_error", "attempts", "published_day")) {
            assertThat(Double.parseDouble(r.get("p99_ms_" + key))).as(key).isPositive();
        }
        assertThat(outcome.ok()).isTrue();
    }
}
