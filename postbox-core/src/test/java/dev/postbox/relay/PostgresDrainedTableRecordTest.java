package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.PgReads;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every row a drain records leaves dead entries for PUBLISHING in the status indexes (the status changes,
 * so the update cannot be HOT) until a vacuum comes. A planner without fresh statistics that reached the
 * claimed rows through such an index read all of them: 50,500 entries and 4,049 heap pages to record 500
 * events 100,000 into a drain, the record step taking 199 ms a batch against 60 after an ANALYZE. The
 * fenced writes that renew and record a batch must read it by primary key, however many dead entries the
 * drain has left behind.
 */
class PostgresDrainedTableRecordTest extends DatabaseContract {

    private static final int EVENTS = 20_000;
    private static final int AGGREGATES = 500;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Test
    void recordingAfterALongDrainReadsItsBatchByPrimaryKeyNotTheDeadEntriesOfTheStatusIndexes() throws Exception {
        String table = postbox.tables().outbox();
        exec("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
        Backlogs.write(postbox, ds, EVENTS, AGGREGATES, 500);
        // half the backlog drained the way a relay drains it (claimed, then recorded), with no vacuum since:
        // every recorded row left dead entries for PUBLISHING in the status indexes
        int drained = EVENTS / 2;
        exec("UPDATE " + table + " SET publish_status = 1, locked_by = 'relay-0', version = version + 1 WHERE id <= "
                + drained);
        exec("UPDATE " + table + " SET publish_status = 2, locked_by = NULL, version = version + 1 WHERE id <= "
                + drained);
        assertThat(queryLong("SELECT reltuples::bigint FROM pg_class WHERE oid = '" + table + "'::regclass"))
                .as("the table was never analyzed or vacuumed").isEqualTo(-1);

        Dialect dialect = postbox.dialect();
        Claimer claimer = Claimer.forDialect(dialect, table, true, Set.of());
        Leases leases = new Leases(dialect, table);
        Instant now = clock.instant();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute(dialect.claimPlanSql());
            }
            List<OutboxRecord> claimed = claimer.claim(c, AGGREGATES, "relay-1", now, now.plusSeconds(60));
            assertThat(claimed).hasSize(AGGREGATES);
            long before = PgReads.of(c, table);
            int renewed = leases.renew(c, claimed, "relay-1", now.plusSeconds(90), now);
            long afterRenew = PgReads.of(c, table);
            int published = leases.published(c, claimed, "relay-1", now);
            long afterRecord = PgReads.of(c, table);
            c.rollback();

            assertThat(renewed).isEqualTo(AGGREGATES);
            assertThat(published).isEqualTo(AGGREGATES);
            // 500 primary-key probes (a few entries each: the row's versions), not the 10,000 dead PUBLISHING
            // entries of a status index (10,500 read before the fix)
            assertThat(afterRenew - before).as("entries renewing 500 leases read").isLessThan(5L * AGGREGATES);
            assertThat(afterRecord - afterRenew).as("entries recording 500 outcomes read").isLessThan(5L * AGGREGATES);
        }
    }
}
