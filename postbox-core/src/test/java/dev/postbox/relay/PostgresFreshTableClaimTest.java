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
 * A backlog arrives in a table filled seconds ago (a broker outage just ended, a burst), before any
 * ANALYZE. With no statistics PostgreSQL expects one claimable row, and the cheapest plan it then sees
 * for "the first n claimable rows in id order" reads every pending row, checks the order guard for each,
 * sorts them and takes n: a claim of 125 read all 100,000 (drain 4.2k events/s instead of 22.9k). The
 * claim's statements must read in proportion to the batch on such a table, whatever the statistics say.
 */
class PostgresFreshTableClaimTest extends DatabaseContract {

    private static final int EVENTS = 20_000;
    private static final int AGGREGATES = 200;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Test
    void aClaimOnATableNeverAnalyzedReadsInProportionToItsBatchNotToTheBacklog() throws Exception {
        String table = postbox.tables().outbox();
        exec("ALTER TABLE " + table + " SET (autovacuum_enabled = false)"); // this test's own schema: stays unanalyzed
        // events of a realistic size (~500 bytes): on a table of tiny rows a sequential scan is the planner's
        // fair choice for 375 ids, whatever the statistics
        Backlogs.write(postbox, ds, EVENTS, AGGREGATES, 500);
        assertThat(queryLong("SELECT reltuples::bigint FROM pg_class WHERE oid = '" + table + "'::regclass"))
                .as("the table was never analyzed or vacuumed").isEqualTo(-1);

        Dialect dialect = postbox.dialect();
        Claimer claimer = Claimer.forDialect(dialect, table, true, Set.of());
        Followers followers = Claimer.followers(dialect, table, Set.of());
        Instant now = clock.instant();
        Instant lockUntil = now.plusSeconds(60);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute(dialect.claimPlanSql());
            }
            long before = PgReads.of(c, table);
            List<OutboxRecord> heads = claimer.claim(c, 125, "relay-1", now, lockUntil);
            long afterHeads = PgReads.of(c, table);
            List<OutboxRecord> runs = followers.claim(c, heads, Set.of(), 375, "relay-1", now, now, lockUntil);
            long afterRuns = PgReads.of(c, table);
            c.rollback();

            assertThat(heads).hasSize(125);
            assertThat(heads).allMatch(r -> r.id() <= heads.get(0).id() + AGGREGATES, "the first heads in id order");
            assertThat(runs).hasSize(375);
            // 125 candidates, a guard probe and an update each: a few hundred entries, not 20,000 pending rows
            assertThat(afterHeads - before).as("entries the heads' claim read").isLessThan(1_000);
            assertThat(afterRuns - afterHeads).as("entries the followers' claim read").isLessThan(2_000);
        }
    }
}
