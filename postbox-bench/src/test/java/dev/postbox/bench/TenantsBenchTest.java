package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The short tenants run of CI on the shared PostgreSQL and NATS: {@code scripts/bench tenants --backlog 10000 --rate 100
 * --seconds 3 --warmup 1} measures tenant B alone and beside tenant A's backlog through postbox-server, loses nothing
 * of either tenant, and its RESULT line parses.
 */
class TenantsBenchTest {

    @Test
    void tenantBIsMeasuredAloneAndBesideTenantAsBacklogAndNothingIsLost() throws Exception {
        Command.Outcome outcome = Bench.run(new TenantsBench(), List.of("--backlog", "10000", "--rate", "100",
                "--seconds", "3", "--warmup", "1", "--aggregates", "100", "--timeout", "45"));
        Map<String, String> r = ChaosContract.fields(outcome.result());

        assertThat(r).as(outcome.result()).containsEntry("scenario", "tenants").containsEntry("db", "postgres")
                .containsEntry("backlog", "10000").containsEntry("b_events", "300").containsEntry("lost", "0")
                .containsEntry("order_violations", "0");
        for (String key : List.of("b_p50_ms_baseline", "b_p99_ms_baseline", "b_p50_ms_backlog", "b_p99_ms_backlog",
                "p50_ratio", "p99_ratio", "a_drain_eps", "cpu_ms_per_1k", "b_p99_ms_shared", "isolation")) {
            assertThat(Double.parseDouble(r.get(key))).as(key).isPositive();
        }
        long left = Long.parseLong(r.get("a_left_at_end"));
        assertThat(left).as("a_left_at_end").isBetween(0L, 10_000L);
        assertThat(r.get("a_drained_before_end")).as("a_drained_before_end").isEqualTo(String.valueOf(left == 0));
        assertThat(Double.parseDouble(r.get("a_overlap_pct"))).as("a_overlap_pct").isBetween(0.0, 100.0);
        assertThat(Long.parseLong(r.get("not_sent"))).as("not_sent").isNotNegative();
        assertThat(outcome.ok()).as(outcome.result()).isTrue();
    }

    @Test
    void runsOnPostgresOrMariaDbOnly() {
        TenantsBench tenants = new TenantsBench();
        tenants.validate(Options.parse(List.of("--db", "mariadb"), tenants.defaults()));
        assertThatThrownBy(() -> tenants.validate(Options.parse(List.of("--db", "h2"), tenants.defaults())))
                .isInstanceOf(UsageException.class).hasMessageContaining("--db postgres or mariadb");
    }

    @Test
    void notSentSumsTheDestinationsHeldBackSendsFromTheServersMeters() {
        String scrape = """
                # HELP postbox_destination_sends_total Events handed to the destination by outcome
                # TYPE postbox_destination_sends_total counter
                postbox_destination_sends_total{destination="nats",outcome="not_sent"} 20096.0
                postbox_destination_sends_total{destination="nats",outcome="published"} 30800.0
                postbox_destination_sends_total{destination="http",outcome="not_sent"} 4.0
                """;
        assertThat(TenantPhase.notSent(scrape)).isEqualTo(20_100);
        assertThat(TenantPhase.notSent("")).isZero();
    }
}
