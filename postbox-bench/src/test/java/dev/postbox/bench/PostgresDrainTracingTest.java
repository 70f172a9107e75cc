package dev.postbox.bench;

import dev.postbox.internal.Json;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/bench drain --tracing} on the shared PostgreSQL, each run in a schema of its own: the traced preload
 * stores what a traced write stores, and a short {@code --tracing compare} links every event once in the traced
 * drains' send spans, delivering each once and in order.
 */
class PostgresDrainTracingTest {

    private static final String TRACEPARENT = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";

    @Test
    void thePreloadStoresTheHeadersATracedWriteStores() throws Exception {
        try (BenchContext ctx = BenchContext.open("postgres", 2, false);
             TracedPostbox traced = TracedPostbox.open(ctx.pool)) {
            Preload.pending(ctx, 1, 1, true); // E-0
            try (Connection c = ctx.pool.getConnection()) {
                traced.postbox().outbox().write(c, EventWriter.event(1, "A0")); // a create span injects its context
                c.commit();
            }
            Map<String, Map<String, String>> headers = new HashMap<>();
            try (Connection c = ctx.pool.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT event_no, event_headers FROM " + ctx.outbox());
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    headers.put(rs.getString(1), Json.readHeaders(rs.getString(2)));
                }
                c.rollback();
            }

            assertThat(headers.get("E-0").keySet()).isEqualTo(headers.get("E-1").keySet())
                    .containsExactlyInAnyOrder("tenant-id", "schema", "traceparent");
            String preloaded = headers.get("E-0").get("traceparent");
            String written = headers.get("E-1").get("traceparent");
            assertThat(preloaded).matches(TRACEPARENT);
            assertThat(written).matches(TRACEPARENT);
            assertThat(preloaded.substring(53)).as("trace flags").isEqualTo(written.substring(53));
            assertThat(preloaded.substring(3, 35)).as("a trace of its own").isNotEqualTo(written.substring(3, 35));
        }
    }

    @Test
    void tracedDrainsLinkEveryEventOnceAndDeliverEachOnceInOrder() throws Exception {
        Command.Outcome outcome = Bench.run(new DrainBench(), List.of("--db", "postgres", "--events", "2000",
                "--aggregates", "100", "--tracing", "compare", "--timeout", "120"));
        Map<String, String> r = ChaosContract.fields(outcome.result());

        assertThat(r).as(outcome.result()).containsEntry("tracing", "compare").containsEntry("traced_drains", "2")
                .containsEntry("traced_events", "4000").containsEntry("links", "4000")
                .containsEntry("duplicates_traced", "0").containsEntry("order_violations_traced", "0")
                .containsEntry("duplicates", "0").containsEntry("order_violations", "0");
        assertThat(Long.parseLong(r.get("spans_exported"))).isPositive();
        assertThat(Double.parseDouble(r.get("links_kept_per_span"))).as("the SDK's default limit").isLessThanOrEqualTo(128);
        assertThat(Double.parseDouble(r.get("traced_vs_untraced"))).isPositive();
        assertThat(outcome.ok()).isTrue();
    }
}
