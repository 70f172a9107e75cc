package dev.postbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxEvent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A chaos producer process, as an application instance with its own clock: for {@code --seconds}, at
 * {@code --rate} transactions per second, picks a random aggregate, locks its business row
 * ({@code SELECT ... FOR UPDATE}, as the README advises), increments its seq and writes one event whose
 * payload carries (aggregate, seq, producer); {@code --rollback-pct} percent of the transactions are
 * rolled back on purpose after the write. Every clock Postbox reads is the system clock shifted by
 * {@code --skew-ms}. Ends with a {@code REPORT} line of its counts; what really committed is read from the
 * database by the checker (a commit interrupted by the database crash is in doubt).
 */
public final class ChaosProducer {

    /** The business table: one row per aggregate, whose seq the producers increment under its row lock. */
    static final String AGGREGATES = "chaos_aggregate";
    static final String AGGREGATE_TYPE = "CHAOS";
    static final String TOPIC = "chaos.event";
    private static final int WARNINGS = 5;

    private ChaosProducer() {
    }

    static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("url", "");
        d.put("user", "");
        d.put("dialect", "");
        d.put("producer", "1");
        d.put("skew-ms", "0");
        d.put("aggregates", "50");
        d.put("seconds", "120");
        d.put("rate", "100");
        d.put("rollback-pct", "5");
        d.put("seed", "1");
        return d;
    }

    public static void main(String[] args) throws Exception {
        Options o = ChaosRole.start("producer", args, defaults());
        int producer = o.positiveInt("producer");
        long skew = Long.parseLong(o.string("skew-ms"));
        Clock clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis(skew));
        try (HikariDataSource pool = ChaosRole.pool("chaos-producer-" + producer, o.string("url"), o.string("user"), 2)) {
            // no nodeId: each process writes with Postbox's defaults, as an application instance would
            Postbox postbox = Postbox.builder(pool).dialect(dialect(o.string("dialect"))).clock(clock)
                    .source("chaos-producer-" + producer).build();
            System.out.println(ChaosRole.READY);
            System.out.flush();
            new Loop(postbox, pool, producer, o).run();
        }
        System.exit(0);
    }

    static Dialect dialect(String kind) {
        return BenchDatabase.kind(kind).equals("postgres") ? Dialect.POSTGRESQL : Dialect.MYSQL;
    }

    /** The producing loop of one process. */
    private static final class Loop {
        private final Postbox postbox;
        private final HikariDataSource pool;
        private final int producer;
        private final int aggregates;
        private final long seconds;
        private final long intervalNanos;
        private final int rollbackPct;
        private final Random random;
        private final String lock = "SELECT seq FROM " + AGGREGATES + " WHERE id = ? FOR UPDATE";
        private final String bump = "UPDATE " + AGGREGATES + " SET seq = ? WHERE id = ?";
        private long committed;
        private long rolledBack;
        private long failed;
        private long attempt;

        Loop(Postbox postbox, HikariDataSource pool, int producer, Options o) {
            this.postbox = postbox;
            this.pool = pool;
            this.producer = producer;
            this.aggregates = o.positiveInt("aggregates");
            this.seconds = o.positiveInt("seconds");
            this.intervalNanos = 1_000_000_000L / o.positiveInt("rate");
            this.rollbackPct = o.nonNegativeInt("rollback-pct");
            this.random = new Random(Long.parseLong(o.string("seed")) * 31 + producer);
        }

        void run() throws InterruptedException {
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            long next = start;
            while (System.nanoTime() < end) {
                String aggregate = "A" + random.nextInt(aggregates);
                boolean rollback = random.nextInt(100) < rollbackPct;
                try {
                    if (write(aggregate, rollback)) {
                        committed++;
                    } else {
                        rolledBack++;
                    }
                } catch (SQLException | RuntimeException e) {
                    if (++failed <= WARNINGS) {
                        System.err.println("WARN producer " + producer + ": transaction failed: " + e);
                    }
                }
                // fixed rate; after a stall (the database crash) catch up by at most one second's worth
                next = Math.max(next + intervalNanos, System.nanoTime() - 1_000_000_000L);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                }
            }
            System.out.println(ChaosRole.REPORT + "producer=" + producer + " committed=" + committed
                    + " rolled_back=" + rolledBack + " failed=" + failed);
            System.out.flush();
        }

        /** One transaction; true when it committed, false when it was rolled back on purpose. */
        private boolean write(String aggregate, boolean rollback) throws SQLException {
            try (Connection c = pool.getConnection()) {
                try {
                    long seq;
                    try (PreparedStatement ps = c.prepareStatement(lock)) {
                        ps.setString(1, aggregate);
                        try (ResultSet rs = ps.executeQuery()) {
                            if (!rs.next()) {
                                throw new IllegalStateException("no business row for aggregate " + aggregate);
                            }
                            seq = rs.getLong(1) + 1;
                        }
                    }
                    try (PreparedStatement ps = c.prepareStatement(bump)) {
                        ps.setLong(1, seq);
                        ps.setString(2, aggregate);
                        ps.executeUpdate();
                    }
                    ChaosPayload payload = new ChaosPayload(aggregate, seq, producer, rollback);
                    postbox.outbox().write(c, OutboxEvent.builder().eventNo("P" + producer + "-" + (++attempt))
                            .aggregate(AGGREGATE_TYPE, aggregate).eventType("CHAOS_CHANGED").channel("HTTP")
                            .topic(TOPIC).payload(payload.json()).build());
                    if (rollback) {
                        c.rollback();
                        return false;
                    }
                    c.commit();
                    return true;
                } catch (SQLException | RuntimeException e) {
                    try {
                        c.rollback();
                    } catch (SQLException ignored) {
                        // the connection is broken (database crash); Hikari discards it
                    }
                    throw e;
                }
            }
        }
    }
}
