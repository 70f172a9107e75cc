package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** MariaDB: every {@code EXPLAIN} row of the table has an access type other than ALL and a serving key. */
class MariaDbIndexUsageTest extends IndexUsageContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected String refreshStatisticsSql(String tableName) {
        return "ANALYZE TABLE " + tableName;
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
    protected void assertReadsIndex(String what, String t, Plan plan, List<String> indexes) {
        List<Map<String, String>> rows = plan.rows().stream().filter(r -> t.equals(r.get("table"))).toList();
        assertThat(rows).as("%s: EXPLAIN has no row for %s:%n%s", what, t, plan.text()).isNotEmpty();
        for (Map<String, String> row : rows) {
            assertThat(row.get("type")).as("%s: access type must not be ALL:%n%s", what, plan.text()).isNotEqualTo("ALL");
            assertThat(row.get("key")).as("%s: key must be one of %s:%n%s", what, indexes, plan.text()).isIn(indexes);
        }
    }
}
