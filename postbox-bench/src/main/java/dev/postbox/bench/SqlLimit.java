package dev.postbox.bench;

import dev.postbox.outbox.OutboxEvent;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The physical limit a relay works against, measured on the same table (same indexes, same size) in the
 * same run: the SQL alone of a batch claim plus its success update, with nothing else: no order guard, no
 * publishing, no Java-side bookkeeping. {@value #THREADS} connections each loop "claim {@code batch}
 * pending rows with SKIP LOCKED and lease them; commit; mark them published; commit" until the rows
 * preloaded for it are gone. The relay's own session settings are used (on PostgreSQL asynchronous
 * commit), so the ratio {@code eps / sql_limit_eps} is how much of the database's possible rate the relay
 * turns into deliveries. Like the drain it is compared with, it runs on rows just written and, unless asked
 * to, never analyzed: a limit measured on fresh statistics would flatter the relay's ratio exactly where a
 * real backlog hurts. Its rows (aggregates {@code L<n>}) are deleted afterwards, so it can run again.
 */
final class SqlLimit {

    static final int THREADS = 2;
    /** Event numbers of the rows written for this measurement start here, far from the drain's. */
    private static final long FIRST_SEQ = 1_000_000_000L;
    /** The aggregates of this measurement's rows ({@code L<n>}); the drain's are {@code A<n>}. */
    private static final String AGGREGATE_PREFIX = "L";

    record Result(long rows, double seconds, boolean analyzed) {
        double eps() {
            return rows / seconds;
        }

        @Override
        public String toString() {
            return "CEILING sql_limit_eps" + (analyzed ? "_analyzed" : "") + "=" + Fmt.rate(eps()) + " rows=" + rows
                    + " seconds=" + Fmt.two(seconds) + " threads=" + THREADS
                    + " (claim + success update SQL alone, unordered, relay session and claim settings, "
                    + (analyzed ? "after ANALYZE" : "statistics not refreshed") + ")";
        }
    }

    private SqlLimit() {
    }

    /** Measures on {@code rows} new rows, with an ANALYZE of the table after writing them when {@code analyze}. */
    static Result measure(BenchContext ctx, int rows, int batch, boolean analyze) throws Exception {
        try (Connection c = ctx.pool.getConnection()) {
            List<OutboxEvent> chunk = new ArrayList<>(Preload.CHUNK);
            for (int i = 0; i < rows; i++) {
                chunk.add(EventWriter.event(FIRST_SEQ + i, AGGREGATE_PREFIX + (i % 1000)));
                if (chunk.size() == Preload.CHUNK || i == rows - 1) {
                    ctx.postbox.outbox().writeAll(c, chunk);
                    c.commit();
                    chunk.clear();
                }
            }
        }
        if (analyze) {
            ctx.db.analyze(ctx.outbox());
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(worker(ctx, batch, "limit-" + t)));
            }
            long done = 0;
            long nanos = 0;
            for (Future<long[]> f : results) {
                long[] r = f.get();
                done += r[0];
                nanos = Math.max(nanos, r[1]);
            }
            return new Result(done, nanos / 1e9, analyze);
        } finally {
            pool.shutdownNow();
            ctx.db.execute("DELETE FROM " + ctx.outbox() + " WHERE aggregate_id LIKE '" + AGGREGATE_PREFIX + "%'");
        }
    }

    private static Callable<long[]> worker(BenchContext ctx, int batch, String owner) {
        return () -> {
            String t = ctx.outbox();
            boolean pg = ctx.db.kind().equals("postgres");
            String planSql = ctx.postbox.dialect().claimPlanSql();
            try (Connection c = ctx.db.connect()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                if (pg) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET synchronous_commit = off");
                        st.execute("SET plan_cache_mode = force_custom_plan");
                    }
                    c.commit();
                }
                long rows = 0;
                long start = System.nanoTime();
                while (true) {
                    List<Long> ids;
                    try {
                        if (planSql != null) { // the relay's claim transactions start with it too
                            try (Statement st = c.createStatement()) {
                                st.execute(planSql);
                            }
                        }
                        ids = pg ? claimPostgres(c, t, batch, owner) : claimLocking(c, t, batch, owner);
                        c.commit();
                    } catch (java.sql.SQLTransactionRollbackException deadlock) {
                        // InnoDB: two plain SKIP LOCKED claims can deadlock on secondary-index locks; a relay
                        // would retry too, so the retry is part of the measured cost
                        c.rollback();
                        continue;
                    }
                    if (ids.isEmpty()) {
                        return new long[] {rows, System.nanoTime() - start};
                    }
                    succeed(c, t, ids, owner, pg);
                    c.commit();
                    rows += ids.size();
                }
            }
        };
    }

    private static List<Long> claimPostgres(Connection c, String t, int batch, String owner) throws SQLException {
        String sql = "WITH c AS (SELECT id FROM " + t + " WHERE publish_status = 0 AND deleted = 0 ORDER BY id LIMIT ?"
                + " FOR UPDATE SKIP LOCKED) UPDATE " + t + " SET publish_status = 1, locked_by = ?, lock_until = ?,"
                + " last_publish_time = ?, version = version + 1, update_time = ? WHERE id = ANY (ARRAY(SELECT id FROM c))"
                + " RETURNING id";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Timestamp now = new Timestamp(System.currentTimeMillis());
            ps.setInt(1, batch);
            ps.setString(2, owner);
            ps.setTimestamp(3, new Timestamp(now.getTime() + 60_000));
            ps.setTimestamp(4, now);
            ps.setTimestamp(5, now);
            return ids(ps);
        }
    }

    private static List<Long> claimLocking(Connection c, String t, int batch, String owner) throws SQLException {
        List<Long> ids;
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + t + " WHERE publish_status = 0 AND deleted = 0"
                + " ORDER BY publish_status, id LIMIT ? FOR UPDATE SKIP LOCKED")) {
            ps.setInt(1, batch);
            ids = ids(ps);
        }
        if (ids.isEmpty()) {
            return ids;
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t + " SET publish_status = 1, locked_by = ?,"
                + " lock_until = ?, last_publish_time = ?, version = version + 1, update_time = ? WHERE id IN ("
                + placeholders(ids.size()) + ")")) {
            Timestamp now = new Timestamp(System.currentTimeMillis());
            ps.setString(1, owner);
            ps.setTimestamp(2, new Timestamp(now.getTime() + 60_000));
            ps.setTimestamp(3, now);
            ps.setTimestamp(4, now);
            for (int i = 0; i < ids.size(); i++) {
                ps.setLong(5 + i, ids.get(i));
            }
            ps.executeUpdate();
        }
        return ids;
    }

    private static void succeed(Connection c, String t, List<Long> ids, String owner, boolean pg) throws SQLException {
        String where = pg ? "id = ANY (?)" : "id IN (" + placeholders(ids.size()) + ")";
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t + " SET publish_status = 2, published_time = ?,"
                + " locked_by = NULL, lock_until = NULL, update_time = ? WHERE " + where
                + " AND locked_by = ? AND publish_status + 0 = 1")) { // by primary key: see Leases (core)
            Timestamp now = new Timestamp(System.currentTimeMillis());
            ps.setTimestamp(1, now);
            ps.setTimestamp(2, now);
            int i = 3;
            if (pg) {
                Array array = c.createArrayOf("bigint", ids.toArray());
                ps.setArray(i++, array);
            } else {
                for (Long id : ids) {
                    ps.setLong(i++, id);
                }
            }
            ps.setString(i, owner);
            ps.executeUpdate();
        }
    }

    private static List<Long> ids(PreparedStatement ps) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    private static String placeholders(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }
}
