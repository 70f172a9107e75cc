package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class H2OperationsIndexTest extends OperationsIndexContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected void analyze(String table) throws SQLException {
        exec("ANALYZE TABLE " + table);
    }

    @Override
    protected void assertNoFullScan(String table, String sql, List<Object> params) throws SQLException {
        String plan = String.join("\n", explain(sql, params, rs -> rs.getString(1)));
        System.out.println(sql + "\n" + plan + "\n");
        assertThat(plan).as(sql + "\n" + plan).doesNotContain("tableScan");
    }
}
