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
}
