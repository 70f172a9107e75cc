package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB: every {@code EXPLAIN} row of the table has an access type other than ALL and a serving key.
 * {@code ANALYZE} (which runs the statement) is checked the same way and shows in {@code r_rows} how
 * many rows the chosen access really read.
 */
class MariaDbIndexUsageTest extends IndexUsageContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected String refreshStatisticsSql(String tableName) {
        return "ANALYZE TABLE " + tableName;
    }

    /**
     * Waits (up to 30 s) for InnoDB to purge the old index entries the status updates left delete-marked:
     * until then the range estimates count them (all 100,000 rows started as pending), and the plans would
     * be those of a table in the middle of a mass update, not of one in steady state.
     */
    @Override
    protected void settleAfterUpdates() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long history = Long.MAX_VALUE;
        while (System.nanoTime() < deadline) {
            history = queryLong("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                    + " WHERE VARIABLE_NAME = 'INNODB_HISTORY_LIST_LENGTH'");
            if (history < 100) {
                break;
            }
            Thread.sleep(200);
        }
        System.out.println("[mariadb] InnoDB history list length before ANALYZE: " + history);
    }

    @Override
    protected List<String> servingIndexes(EventTable table, String t, HotQuery query) {
        return switch (query) {
            case PENDING -> List.of("idx_status_id", "idx_status_retry_time");
            case DUE_RETRIES -> List.of("idx_status_retry_time");
            case BY_KEY -> List.of(table == EventTable.OUTBOX ? "idx_aggregate" : "idx_biz_type_biz_id");
            case BY_EVENT_NO -> List.of("uk_event_no");
        };
    }

    @Override
    protected List<Plan> explain(Connection c, String sql, List<Object> params) throws SQLException {
        return List.of(explainWith(c, "EXPLAIN " + sql, params, "EXPLAIN"),
                explainWith(c, "ANALYZE " + sql, params, "ANALYZE, statement executed"));
    }

    @Override
    protected void assertReadsIndex(String what, String t, Plan plan, List<String> indexes) {
        List<Map<String, String>> rows = plan.rows().stream().filter(r -> t.equals(r.get("table"))).toList();
        assertThat(rows).as("%s: EXPLAIN has no row for %s:%n%s", what, t, plan.text()).isNotEmpty();
        for (Map<String, String> row : rows) {
            assertThat(row.get("type")).as("%s: access type must not be ALL:%n%s", what, plan.text()).isNotEqualTo("ALL");
            assertThat(row.get("key")).as("%s: key must be one of %s:%n%s", what, indexes, plan.text()).isIn(indexes);
        }
    }
}
