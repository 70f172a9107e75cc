package dev.postbox.relay;

import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the relay's MariaDB statements on a table InnoDB has not sampled since it was filled (the
 * backlog after a broker outage: statistics of an empty table, automatic recalculation switched off for the
 * table so that it cannot catch up in the background during the test). Each statement must read the index
 * its shape was written for, without a sort, and the order guard's probes must be answered from their index
 * alone. The SQL is the text the relay runs.
 */
class MariaDbClaimPlanTest extends DatabaseContract {

    private static final int ROWS = 20_000;
    private static final int AGGREGATES = 200;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    private String table;
    private LockingSelectClaimer claimer;

    @BeforeEach
    final void fillWithoutStatistics() throws Exception {
        table = postbox.tables().outbox();
        claimer = (LockingSelectClaimer) Claimer.forDialect(postbox.dialect(), table, true, Set.of());
        exec("TRUNCATE TABLE " + table); // ids from 1 again
        exec("ALTER TABLE " + table + " STATS_AUTO_RECALC = 0");
        exec("ANALYZE TABLE " + table); // statistics of the empty table, as InnoDB took them when it was created
        exec("""
                INSERT INTO %s (event_no, aggregate_type, aggregate_id, event_type, event_source, publish_channel,
                 topic, event_payload, create_time, update_time)
                SELECT CONCAT('E-', seq), 'ORDER', CONCAT('A-', seq MOD %d), 'ORDER_CREATED', 'test', 'MQ', 'orders',
                 CONCAT('{"n":', seq, '}'), UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) FROM seq_1_to_%d"""
                .formatted(table, AGGREGATES, ROWS));
        // every status the claim meets: history, a relay's batch in flight, expired leases, due retries, dead ones
        exec("UPDATE " + table + " SET publish_status = 2 WHERE id <= 2000");
        exec("UPDATE " + table + " SET publish_status = 1, locked_by = 'other', lock_until = '2999-01-01'"
                + " WHERE id > 2000 AND id <= 2500");
        exec("UPDATE " + table + " SET publish_status = 1, locked_by = 'gone', lock_until = '2000-01-01'"
                + " WHERE id > 2500 AND id <= 2600");
        exec("UPDATE " + table + " SET publish_status = 3, next_retry_time = '2000-01-01', retry_count = id MOD 3"
                + " WHERE id > 2600 AND id <= 3000");
        exec("UPDATE " + table + " SET publish_status = 5 WHERE id > 3000 AND id <= 3100");
        exec("UPDATE " + table + " SET deleted = 1 WHERE id > 3100 AND id <= 3150");
    }

    @Test
    final void theTableReallyHasNoStatisticsOfItsRows() throws Exception {
        assertThat(count(table)).isEqualTo(ROWS);
        assertThat(queryLong("SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = DATABASE()"
                + " AND table_name = ?", table)).as("InnoDB's persistent row estimate").isLessThan(ROWS / 100);
    }

    @Test
    final void pendingSelectWalksTheStatusIndexAndProbesIndexOnly() throws Exception {
        assertCandidateSelect(claimer.pendingSql, List.of(250), "idx_status_id");
    }

    @Test
    final void dueSelectWalksTheRetryIndexInItsOrderWithoutSortingEveryDueRow() throws Exception {
        assertCandidateSelect(claimer.dueSql, List.of(Instant.now(), 250), "idx_status_retry_time");
    }

    @Test
    final void expiredSelectWalksTheLeaseIndexWithoutSorting() throws Exception {
        assertCandidateSelect(claimer.expiredSql, List.of(Instant.now(), 250), "idx_status_lock_until");
    }

    @Test
    final void outcomeUpdateFindsItsRowsByPrimaryKeyAlsoWhenTheStatusRangeIsAsShort() throws Exception {
        // the batch recorded is every in-flight row, as many as the (status, lock_until) range holds: a tie on
        // the estimates, which MariaDB breaks for the status index (with statistics, too) and then walks
        // every relay's in-flight rows once there are more
        exec("ANALYZE TABLE " + table);
        List<Long> ids = ids(2001, 600);
        List<Object> params = new ArrayList<>(List.of(Instant.now(), Instant.now()));
        params.addAll(ids);
        params.add("other");
        for (Long id : ids) {
            params.add(id);
            params.add(0);
        }
        String sql = new Leases(postbox.dialect(), table).inListUpdateSql("lock_until = ?, update_time = ?", ids.size());
        List<Map<String, String>> plan = explain(sql, params);
        assertThat(plan).hasSize(1);
        assertThat(plan.get(0).get("key")).as(text(plan)).isEqualTo("PRIMARY");
    }

    @Test
    final void failureAndGivenBackLeaseFindTheirRowByPrimaryKeyNotByTheStatusIndex() throws Exception {
        // with or without statistics MariaDB runs "id = ? AND publish_status = 1" through (publish_status, id)
        // unless told: a point of that index, whose next-key lock covers the gap before the first in-flight row
        List<String> statements = new Leases(postbox.dialect(), table).rowStatements();
        List<Object> fence = List.of(2001L, 0, "other");
        Instant now = Instant.now();
        List<Object> failure = new ArrayList<>(List.of(StatusCodes.FAILED, 1, now, "broker busy", now));
        failure.addAll(fence);
        List<Object> release = new ArrayList<>(List.of(now, now));
        release.addAll(fence);
        for (boolean analyzed : new boolean[] {false, true}) {
            if (analyzed) {
                exec("ANALYZE TABLE " + table);
            }
            for (List<Map<String, String>> plan : List.of(explain(statements.get(0), failure),
                    explain(statements.get(1), release))) {
                assertThat(plan).hasSize(1);
                assertThat(plan.get(0).get("key")).as(text(plan)).isEqualTo("PRIMARY");
            }
        }
    }

    private void assertCandidateSelect(String sql, List<Object> params, String index) throws Exception {
        List<Map<String, String>> plan = explain(sql, params);
        Map<String, String> outer = plan.stream().filter(r -> "e".equals(r.get("table"))).findFirst().orElseThrow();
        assertThat(outer.get("key")).as(text(plan)).isEqualTo(index);
        assertThat(outer.get("type")).as(text(plan)).isIn("ref", "range");
        assertThat(extra(outer)).as(text(plan)).doesNotContain("Using filesort", "Using temporary");
        List<Map<String, String>> probes = plan.stream().filter(r -> "p".equals(r.get("table"))).toList();
        assertThat(probes).as("one probe per blocking status:%n%s", text(plan)).hasSize(StatusCodes.BLOCKING.size());
        for (Map<String, String> p : probes) {
            assertThat(p.get("key")).as(text(plan)).isEqualTo("idx_aggregate_status");
            assertThat(p.get("ref")).as("aggregate, status and deleted as the key prefix:%n%s", text(plan))
                    .endsWith(".e.aggregate_type,%s.e.aggregate_id,const,const".formatted(db()));
            assertThat(extra(p)).as("answered from the index alone:%n%s", text(plan)).contains("Using index");
        }
    }

    private String db() throws SQLException {
        return queryString("SELECT DATABASE()");
    }

    private static List<String> extra(Map<String, String> row) {
        String extra = row.get("extra");
        return extra == null ? List.of() : Arrays.stream(extra.split(";")).map(String::strip).toList();
    }

    private static List<Long> ids(long first, int n) {
        List<Long> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(first + i);
        }
        return ids;
    }

    private static String text(List<Map<String, String>> plan) {
        StringBuilder b = new StringBuilder();
        plan.forEach(r -> b.append(r).append('\n'));
        return b.toString();
    }

    private List<Map<String, String>> explain(String sql, List<Object> params) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            int i = 1;
            for (Object p : params) {
                if (p instanceof Instant t) {
                    postbox.dialect().bindTime(ps, i++, t);
                } else {
                    ps.setObject(i++, p);
                }
            }
            List<Map<String, String>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (int col = 1; col <= md.getColumnCount(); col++) {
                        row.put(md.getColumnLabel(col).toLowerCase(Locale.ROOT), rs.getString(col));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }
}
