package dev.postbox.message;

import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the worker's fenced writes on MariaDB, on a message table of a long history and a few events in
 * flight, failed or dead, before and after InnoDB sampled it: each finds its row by primary key. Through the
 * {@code (event_status, id)} index, which MariaDB takes for {@code id = ? AND event_status = ?} while few rows have
 * that status, a write would also lock the gap before the entry at REPEATABLE READ. The SQL is the text the worker
 * runs.
 */
class MariaDbWorkerPlanTest extends DatabaseContract {

    private static final int ROWS = 20_000;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    private String table;

    @BeforeEach
    final void fillWithoutStatistics() throws Exception {
        table = postbox.tables().message();
        exec("TRUNCATE TABLE " + table);
        exec("ALTER TABLE " + table + " STATS_AUTO_RECALC = 0");
        exec("ANALYZE TABLE " + table);
        exec("""
                INSERT INTO %s (event_no, event_type, biz_type, biz_id, event_source, event_payload, event_status,
                 create_time, update_time)
                SELECT CONCAT('M-', seq), 'X', 'ORDER', CONCAT('B-', seq), 'test', '{}', %d, UTC_TIMESTAMP(3),
                 UTC_TIMESTAMP(3) FROM seq_1_to_%d""".formatted(table, MessageStatus.SUCCEEDED.code(), ROWS));
        exec("UPDATE " + table + " SET event_status = " + MessageStatus.PROCESSING.code() + ", version = 1,"
                + " last_handle_time = UTC_TIMESTAMP(3) WHERE id > 19980 AND id <= 19985");
        exec("UPDATE " + table + " SET event_status = " + MessageStatus.FAILED.code() + ", retry_count = 3,"
                + " next_retry_time = '2000-01-01' WHERE id > 19970 AND id <= 19974");
        exec("UPDATE " + table + " SET event_status = " + MessageStatus.DEAD.code() + " WHERE id > 19960 AND id <= 19962");
    }

    @Test
    final void fencedWritesFindTheirRowByPrimaryKey() throws Exception {
        List<String> statements = new WorkerStore(postbox.dialect(), table, Set.of("X")).fencedStatements();
        Instant now = Instant.now();
        List<List<Object>> params = List.of(
                List.of(MessageStatus.FAILED.code(), 1, now, "down", now, 19981L, 1), // failure
                List.of(now, 19971L, 0), // cancel: FAILED, on the version the failure wrote
                List.of(now, now, 19981L, 1), // touch
                List.of(now, now, 19981L, 1)); // success
        for (boolean analyzed : new boolean[] {false, true}) {
            if (analyzed) {
                exec("ANALYZE TABLE " + table);
            }
            for (int i = 0; i < statements.size(); i++) {
                List<String> plan = explain(postbox.dialect(), statements.get(i), params.get(i),
                        rs -> rs.getString("key") + " (" + rs.getString("type") + ", " + rs.getString("Extra") + ")");
                assertThat(plan).as(statements.get(i)).hasSize(1);
                assertThat(plan.get(0)).as(statements.get(i)).startsWith("PRIMARY ");
            }
        }
    }

    @Test
    final void theTableReallyHasFewRowsInFlight() throws Exception {
        List<Long> counts = new ArrayList<>();
        for (MessageStatus s : List.of(MessageStatus.PROCESSING, MessageStatus.FAILED, MessageStatus.DEAD)) {
            counts.add(queryLong("SELECT COUNT(*) FROM " + table + " WHERE event_status = ?", s.code()));
        }
        assertThat(counts).containsExactly(5L, 4L, 2L);
    }
}
