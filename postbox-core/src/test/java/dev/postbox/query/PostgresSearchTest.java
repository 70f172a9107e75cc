package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresSearchTest extends SearchContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected void analyze(String table) throws SQLException {
        exec("VACUUM ANALYZE " + table);
    }

    @Override
    protected void assertNoFullScan(String table, String sql, List<Object> params) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.size(); i++) {
                if (params.get(i) instanceof Instant t) {
                    postbox.dialect().bindTime(ps, i + 1, t);
                } else {
                    ps.setObject(i + 1, params.get(i));
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        assertThat(plan.toString()).as(sql + "\n" + plan).doesNotContain("Seq Scan on " + table).contains("Index");
    }
}
