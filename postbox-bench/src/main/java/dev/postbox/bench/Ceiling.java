package dev.postbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The database's ceiling for this workload's unit of work: single-row auto-commit INSERTs into
 * {@code bench_ceiling} from {@value #THREADS} connections, for {@link #MAX_MILLIS} (5,000 ms) or
 * {@value #MAX_ROWS_PER_THREAD} rows each, whichever comes first. Every commit is a durable write, so this is
 * about the most transactions per second the server can take from two clients.
 */
final class Ceiling {

    static final int THREADS = 2;
    /**
     * The measured window: 5,000 ms, or {@code -Dpostbox.bench.ceiling-ms}; postbox-bench's own tests (the short CI
     * runs, which assert on the RESULT line, never on the ceiling) take 1,000 ms (its pom). The CEILING line prints
     * the seconds it measured.
     */
    static final long MAX_MILLIS = Long.getLong("postbox.bench.ceiling-ms", 5_000);
    static final int MAX_ROWS_PER_THREAD = 20_000;
    private static final int WARMUP_ROWS = 200;

    /** Rows inserted, seconds taken and the rate. */
    record Result(long rows, double seconds) {
        double eps() {
            return rows / seconds;
        }

        @Override
        public String toString() {
            return "CEILING insert_eps=" + Fmt.rate(eps()) + " rows=" + rows + " seconds=" + Fmt.two(seconds)
                    + " threads=" + THREADS + " (single-row autocommit INSERT)";
        }
    }

    private Ceiling() {
    }

    static Result measure(BenchDatabase db) throws Exception {
        db.execute("CREATE TABLE bench_ceiling (id BIGINT PRIMARY KEY, payload VARCHAR(200))");
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long firstId = (long) t * 1_000_000_000L;
                results.add(pool.submit(inserter(db, firstId)));
            }
            long rows = 0;
            long nanos = 0;
            for (Future<long[]> f : results) {
                long[] r = f.get();
                rows += r[0];
                nanos = Math.max(nanos, r[1]);
            }
            return new Result(rows, nanos / 1e9);
        } finally {
            pool.shutdownNow();
            db.execute("DROP TABLE bench_ceiling");
        }
    }

    /** Returns {rows, nanos} of the measured part (after a short warm-up). */
    private static Callable<long[]> inserter(BenchDatabase db, long firstId) {
        return () -> {
            try (Connection c = db.connect();
                 PreparedStatement ps = c.prepareStatement("INSERT INTO bench_ceiling (id, payload) VALUES (?, ?)")) {
                c.setAutoCommit(true);
                long id = firstId;
                for (int i = 0; i < WARMUP_ROWS; i++) {
                    insert(ps, id++);
                }
                long start = System.nanoTime();
                long deadline = start + MAX_MILLIS * 1_000_000L;
                int rows = 0;
                while (rows < MAX_ROWS_PER_THREAD && System.nanoTime() < deadline) {
                    insert(ps, id++);
                    rows++;
                }
                return new long[] {rows, System.nanoTime() - start};
            }
        };
    }

    private static void insert(PreparedStatement ps, long id) throws SQLException {
        ps.setLong(1, id);
        ps.setString(2, "{\"orderNo\":\"" + id + "\",\"amount\":100,\"currency\":\"EUR\"}");
        ps.executeUpdate();
    }
}
