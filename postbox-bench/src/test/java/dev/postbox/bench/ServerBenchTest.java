package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short server run of CI on the shared PostgreSQL, MariaDB and NATS: {@code scripts/bench server --events 2000
 * --replicas 1,2 --replica-events 2000} drains both sources through the embedded relays, postbox-server in the JVM and
 * one and two replica processes, loses nothing in any of them, and its RESULT line parses.
 */
class ServerBenchTest {

    @Test
    void embeddedServerAndReplicasDrainBothSourcesAndLoseNothing() throws Exception {
        Command.Outcome outcome = Bench.run(new ServerBench(), List.of("--events", "2000", "--warmup", "500",
                "--replicas", "1,2", "--replica-events", "2000", "--aggregates", "100", "--timeout", "60"));
        Map<String, String> r = ChaosContract.fields(outcome.result());

        assertThat(r).as(outcome.result()).containsEntry("scenario", "server").containsEntry("events", "2000")
                .containsEntry("replica_events", "2000").containsEntry("lost", "0");
        for (String key : List.of("server_eps", "server_pg_eps", "server_mariadb_eps", "embedded_eps", "embedded_pg_eps",
                "embedded_mariadb_eps", "ratio", "cpu_ms_per_1k", "cpu_ms_per_1k_embedded", "replicas1_eps",
                "replicas2_eps", "replicas2_vs_1", "replicas1_cpu_ms_per_1k", "replicas2_cpu_ms_per_1k")) {
            assertThat(Double.parseDouble(r.get(key))).as(key).isPositive();
        }
        assertThat(Long.parseLong(r.get("replicas2_start_ms"))).as("both replicas reported running").isPositive();
        assertThat(outcome.ok()).as(outcome.result()).isTrue();
    }
}
