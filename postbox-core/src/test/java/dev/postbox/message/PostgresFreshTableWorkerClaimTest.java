package dev.postbox.message;

import dev.postbox.jdbc.Dialect;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.PgReads;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The message worker's claim on a table filled seconds ago and never analyzed (see the relay's
 * PostgresFreshTableClaimTest): it reads in proportion to its batch, not to the backlog.
 */
class PostgresFreshTableWorkerClaimTest extends DatabaseContract {

    private static final int EVENTS = 20_000;

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Test
    void aWorkerClaimOnATableNeverAnalyzedReadsInProportionToItsBatchNotToTheBacklog() throws Exception {
        String table = postbox.tables().message();
        exec("ALTER TABLE " + table + " SET (autovacuum_enabled = false)"); // this test's own schema: stays unanalyzed
        String pad = "x".repeat(450);
        List<MessageEvent> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add(MessageEvent.builder().eventNo("M-" + i).eventType(i % 2 == 0 ? "ORDER_PAID" : "ORDER_SHIPPED")
                    .biz("ORDER", "O-" + (i % 500)).payload("{\"seq\":" + i + ",\"pad\":\"" + pad + "\"}").build());
            if (events.size() == 1000) {
                List<MessageEvent> chunk = List.copyOf(events);
                inTx(c -> {
                    for (MessageEvent e : chunk) {
                        postbox.messages().create(c, e);
                    }
                    return null;
                });
                events.clear();
            }
        }
        assertThat(queryLong("SELECT reltuples::bigint FROM pg_class WHERE oid = '" + table + "'::regclass"))
                .as("the table was never analyzed or vacuumed").isEqualTo(-1);

        Dialect dialect = postbox.dialect();
        WorkerStore store = new WorkerStore(dialect, table, Set.of("ORDER_PAID"));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute(dialect.claimPlanSql());
            }
            long before = PgReads.of(c, table);
            List<MessageRecord> claimed = store.claim(c, 100, clock.instant());
            long read = PgReads.of(c, table) - before;
            c.rollback();

            assertThat(claimed).hasSize(100).allMatch(m -> m.eventType().equals("ORDER_PAID"));
            // 100 claimed of every other event: about 200 index entries and 100 updates, not 20,000 rows
            assertThat(read).as("entries the worker's claim read").isLessThan(1_000);
        }
    }
}
