package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL: {@code EXPLAIN} with the values bound (the custom plan the first executions get), and the
 * generic plan a server-prepared statement switches to after pgjdbc's prepareThreshold; both must read
 * the expected index and never {@code Seq Scan} the table.
 */
class PostgresIndexUsageTest extends IndexUsageContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected String refreshStatisticsSql(String tableName) {
        // VACUUM too, as autovacuum would have after the bulk status updates (it also sets the visibility map).
        return "VACUUM ANALYZE " + tableName;
    }

    @Override
    protected List<String> servingIndexes(EventTable table, String t, HotQuery query) {
        return switch (query) {
            case PENDING -> List.of(t + "_idx_unfinished");
            case DUE_RETRIES -> List.of(t + "_idx_status_retry_time");
            case BY_KEY -> List.of(t + (table == EventTable.OUTBOX ? "_idx_aggregate" : "_idx_biz_type_biz_id"));
            case BY_EVENT_NO -> List.of(t + "_uk_event_no");
        };
    }

    @Override
    protected List<Plan> explain(Connection c, String sql, List<Object> params) throws SQLException {
        Plan custom = explainWith(c, "EXPLAIN " + sql, params, "custom plan, values bound");
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            numbered.append(ch == '?' ? "$" + (++n) : String.valueOf(ch));
        }
        StringBuilder args = new StringBuilder();
        for (Object p : params) {
            args.append(args.isEmpty() ? "" : ", ").append(literal(p));
        }
        try (Statement st = c.createStatement()) {
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute("PREPARE postbox_explain AS " + numbered);
            try {
                Plan generic = explainWith(c, "EXPLAIN EXECUTE postbox_explain(" + args + ")", List.of(), "generic plan");
                return List.of(custom, generic);
            } finally {
                st.execute("DEALLOCATE postbox_explain");
                st.execute("RESET plan_cache_mode");
            }
        }
    }

    private static String literal(Object p) {
        if (p instanceof Instant t) {
            return "'" + t + "'::timestamptz";
        }
        if (p instanceof String s) {
            return "'" + s.replace("'", "''") + "'";
        }
        return p.toString();
    }

    @Override
    protected void assertReadsIndex(String what, String t, Plan plan, List<String> indexes) {
        String text = plan.text();
        boolean readsIndex = indexes.stream().anyMatch(idx -> Pattern.compile(
                "(Index Scan|Index Only Scan)( Backward)? using " + Pattern.quote(idx) + " on " + Pattern.quote(t) + "\\b"
                        + "|Bitmap Index Scan on " + Pattern.quote(idx) + "\\b").matcher(text).find());
        assertThat(readsIndex).as("%s: plan must read one of %s:%n%s", what, indexes, text).isTrue();
        assertThat(Pattern.compile("Seq Scan on " + Pattern.quote(t) + "\\b").matcher(text).find())
                .as("%s: plan must not Seq Scan %s:%n%s", what, t, text).isFalse();
    }
}
