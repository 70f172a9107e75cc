package dev.postbox.bench;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Fills the outbox before a drain: pending events through {@code writeAll}, in transactions of {@value #CHUNK}; traced,
 * each with the creation context a traced write stores (its own trace, {@link TracedPostbox#newCreateContext()}).
 */
final class Preload {

    static final int CHUNK = 1000;

    private Preload() {
    }

    /** Writes {@code events} pending events {@code E-0..} round-robin over {@code aggregates} aggregates. */
    static void pending(BenchContext ctx, int events, int aggregates) throws SQLException {
        pending(ctx, events, aggregates, 0);
    }

    /**
     * The same, each event with a creation context in its headers when {@code traced}: what the rows of an application
     * tracing with {@link TracedPostbox} hold (the write itself stays untraced: no create span is started, none
     * exported).
     */
    static void pending(BenchContext ctx, int events, int aggregates, boolean traced) throws SQLException {
        pending(ctx, ctx.postbox, events, aggregates, 0, traced);
    }

    /**
     * Writes {@code events} pending events {@code E-<firstSeq>..} round-robin over {@code aggregates} aggregates, in
     * seq order from one connection: within an aggregate, id order is seq order.
     */
    static void pending(BenchContext ctx, int events, int aggregates, long firstSeq) throws SQLException {
        pending(ctx, ctx.postbox, events, aggregates, firstSeq);
    }

    /**
     * The same into the outbox of {@code postbox} (e.g. one tenant's table set, {@link TenantTables}), through the
     * connections of {@code ctx}'s pool.
     */
    static void pending(BenchContext ctx, Postbox postbox, int events, int aggregates, long firstSeq) throws SQLException {
        pending(ctx, postbox, events, aggregates, firstSeq, false);
    }

    private static void pending(BenchContext ctx, Postbox postbox, int events, int aggregates, long firstSeq,
                                boolean traced) throws SQLException {
        long started = System.nanoTime();
        try (Connection c = ctx.pool.getConnection()) {
            List<OutboxEvent> batch = new ArrayList<>(CHUNK);
            for (int i = 0; i < events; i++) {
                String aggregate = Aggregates.roundRobin(i, aggregates);
                batch.add(traced ? EventWriter.event(firstSeq + i, aggregate, TracedPostbox.newCreateContext())
                        : EventWriter.event(firstSeq + i, aggregate));
                if (batch.size() == CHUNK || i == events - 1) {
                    postbox.outbox().writeAll(c, batch);
                    c.commit();
                    batch.clear();
                }
            }
        }
        double s = (System.nanoTime() - started) / 1e9;
        Fmt.line("PRELOAD db=" + ctx.db.kind() + (postbox == ctx.postbox ? "" : " table=" + postbox.tables().outbox())
                + " pending=" + events + " seconds=" + Fmt.two(s) + " write_eps=" + Fmt.rate(events / s)
                + (traced ? " traceparent=each" : "") + " (writeAll, " + CHUNK + " per transaction"
                + (traced ? "; each event a W3C traceparent of a sampled trace of its own in its headers" : "") + ")");
    }
}
