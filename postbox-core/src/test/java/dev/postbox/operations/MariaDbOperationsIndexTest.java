package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbOperationsIndexTest extends OperationsIndexContract {
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
        List<String> rows = explain(sql, params, rs -> rs.getString("table") + " type=" + rs.getString("type") + " key="
                + rs.getString("key") + " rows=" + rs.getString("rows") + " extra=" + rs.getString("Extra"));
        String plan = String.join("\n", rows);
        System.out.println(sql + "\n" + plan + "\n");
        List<String> ofTable = rows.stream().filter(r -> r.startsWith(table + " ")).toList();
        assertThat(ofTable).as(sql + "\n" + plan).isNotEmpty()
                .allSatisfy(r -> assertThat(r).as(sql + "\n" + plan).doesNotContain("type=ALL").doesNotContain("key=null"));
    }
}
