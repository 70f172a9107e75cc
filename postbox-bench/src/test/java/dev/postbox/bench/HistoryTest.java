package dev.postbox.bench;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * History rows (written by each database's own SQL, not by the outbox API) are as big as the bench's events:
 * on H2 in memory and on the shared PostgreSQL and MariaDB servers (a throw-away schema/database each).
 */
class HistoryTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "mariadb"})
    void historyRowsCarryARealisticPayloadHeadersTraceIdAndRoutingKey(String kind) throws Exception {
        try (BenchContext ctx = BenchContext.open(kind, 2, false)) {
            History.insert(ctx, 50, 7);
            try (Connection c = ctx.db.connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT event_no, aggregate_id, event_payload, event_headers, trace_id,"
                         + " routing_key, publish_status FROM " + ctx.outbox() + " ORDER BY id")) {
                int n = 0;
                while (rs.next()) {
                    n++;
                    assertThat(rs.getString(1)).isEqualTo("H-" + n);
                    assertThat(rs.getString(2)).isEqualTo("A" + (n % 7));
                    String payload = rs.getString(3);
                    EventWriterTest.assertValidJson(payload);
                    assertThat(payload.getBytes(StandardCharsets.UTF_8).length).isBetween(340, 480);
                    assertThat(payload).contains("\"seq\":" + n + ",");
                    assertThat(rs.getString(4)).contains("tenant-id").contains("schema");
                    assertThat(rs.getString(5)).hasSize(32);
                    assertThat(rs.getString(6)).isEqualTo("order.eu.changed");
                    assertThat(rs.getInt(7)).isEqualTo(2);
                }
                assertThat(n).isEqualTo(50);
            }
        }
    }
}
