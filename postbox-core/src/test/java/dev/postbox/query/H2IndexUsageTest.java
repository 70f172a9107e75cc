package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * H2: the plan's index comment names a serving index, and it is not a {@code tableScan}.
 * {@code EXPLAIN ANALYZE} (which runs the statement) is checked the same way and shows the scan count.
 */
class H2IndexUsageTest extends IndexUsageContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected String refreshStatisticsSql(String tableName) {
        return "ANALYZE TABLE " + tableName;
    }

    @Override
    protected List<String> servingIndexes(EventTable table, String t, HotQuery query) {
        // H2 has no partial indexes: the pending query's index is (status, id). The unique constraint's
        // index is named after the constraint plus a suffix, so names are matched as prefixes.
        return switch (query) {
            case PENDING -> List.of(t + "_idx_status_id");
            case DUE_RETRIES -> List.of(t + "_idx_status_retry_time");
            case BY_KEY -> List.of(t + (table == EventTable.OUTBOX ? "_idx_aggregate" : "_idx_biz_type_biz_id"));
            case BY_EVENT_NO -> List.of(t + "_uk_event_no");
        };
    }

    @Override
    protected List<Plan> explain(Connection c, String sql, List<Object> params) throws SQLException {
        return List.of(explainWith(c, "EXPLAIN " + sql, params, "EXPLAIN"),
                explainWith(c, "EXPLAIN ANALYZE " + sql, params, "EXPLAIN ANALYZE, statement executed"));
    }

    @Override
    protected void assertReadsIndex(String what, String t, Plan plan, List<String> indexes) {
        String text = plan.text();
        boolean readsIndex = indexes.stream()
                .anyMatch(idx -> text.contains("/* PUBLIC." + idx.toUpperCase(Locale.ROOT)));
        assertThat(readsIndex).as("%s: plan must read one of %s:%n%s", what, indexes, text).isTrue();
        assertThat(text).as("%s: plan must not scan the table:%n%s", what, text).doesNotContain("tableScan");
    }
}
