package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbSearchTest extends SearchContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected void analyze(String table) throws SQLException {
        exec("ANALYZE TABLE " + table);
    }

    @Override
    protected void assertNoFullScan(String table, String sql, List<Object> params) throws SQLException {
        String plan = String.join("\n", explain(sql, params, rs -> "table=" + rs.getString("table") + " type=" + rs.getString("type")
                + " key=" + rs.getString("key") + " rows=" + rs.getString("rows") + " extra=" + rs.getString("Extra")));
        assertThat(plan).as(sql + "\n" + plan).doesNotContain("type=ALL").doesNotContain("key=null");
    }

    /**
     * A driver that pins a string column (type:, topic:, aggregate:) reads its index in order, without sorting the
     * range, also when the session's collation is not the columns' (utf8mb4_bin): MariaDB cannot drop such a column
     * from an ORDER BY, so the search leaves it out. With it in, each of these plans says "Using filesort".
     */
    @org.junit.jupiter.api.Test
    void aDriverThatPinsAStringColumnReadsItsIndexInOrderWhateverTheSessionCollation() throws Exception {
        java.util.List<dev.postbox.outbox.OutboxEvent> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            batch.add(dev.postbox.outbox.OutboxEvent.builder().eventNo("C-" + i).aggregate("ORDER", "C-" + (i % 300))
                    .eventType("CT" + (i % 3)).channel("MQ").topic("ct-" + (i % 3)).payload("{}").build());
        }
        inTx(c -> postbox.outbox().writeAll(c, batch));
        analyze(postbox.tables().outbox());
        OutboxSearch search = postbox.queries().outboxSearch();
        java.time.Instant now = clock.instant();
        for (String[] q : new String[][]{{"type:CT1", "CT1"}, {"topic:ct-2", "ct-2"}, {"aggregate:ORDER/C-7", "ORDER", "C-7"}}) {
            SearchQuery parsed = SearchQuery.parse(q[0], now);
            String sql = search.drivingSql(parsed);
            for (String collation : List.of("utf8mb4_general_ci", "utf8mb4_unicode_ci", "utf8mb4_bin")) {
                try (java.sql.Connection c = ds.getConnection()) {
                    try (java.sql.Statement st = c.createStatement()) {
                        st.execute("SET NAMES utf8mb4 COLLATE " + collation);
                    }
                    try (java.sql.PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
                        int i = 1;
                        for (int k = 1; k < q.length; k++) {
                            ps.setString(i++, q[k]);
                        }
                        ps.setInt(i, 501);
                        StringBuilder plan = new StringBuilder();
                        try (java.sql.ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                plan.append("key=").append(rs.getString("key")).append(" extra=")
                                        .append(rs.getString("Extra")).append('\n');
                            }
                        }
                        assertThat(plan.toString()).as(collation + ": " + sql + "\n" + plan).doesNotContain("filesort")
                                .doesNotContain("key=null");
                    }
                    try (java.sql.Statement st = c.createStatement()) {
                        st.execute("SET NAMES utf8mb4");
                    }
                }
            }
        }
    }
}
