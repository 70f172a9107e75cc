package dev.postbox.test.spring;

import dev.postbox.Postbox;
import dev.postbox.message.MessageStatus;
import dev.postbox.message.MessageWorker;
import dev.postbox.message.WorkerCycle;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.relay.Relay;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Waits, without sleeping, until Postbox in a {@link PostboxTest}'s application has settled: nothing is due that
 * the relay (or the message-event worker) could take now, and nothing is in flight. It drives the starter's running
 * relay and worker itself, one cycle at a time on the calling thread ({@code relay.runOnce()}, as a second relay
 * would), and while events are in flight on their own threads it waits for the next cycle they finish. Events
 * waiting for a retry time in the future are settled for now: advance the {@link dev.postbox.test.TestClock} and
 * await again. Thread-safe.
 */
public final class PostboxAwait {

    /** How long {@link #awaitQuiescence()} waits at most. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** Longest wait for the next cycle before looking again (a cycle that claimed nothing signals nothing). */
    private static final long LOOK_AGAIN_NANOS = 50_000_000L;
    private static final int LISTED = 20;

    private final Postbox postbox;
    private final Supplier<DataSource> dataSource;
    private final Supplier<Relay> relay;
    private final Supplier<MessageWorker> worker;
    private final CycleSignal signal;

    PostboxAwait(Postbox postbox, Supplier<DataSource> dataSource, Supplier<Relay> relay, Supplier<MessageWorker> worker,
                 CycleSignal signal) {
        this.postbox = postbox;
        this.dataSource = dataSource;
        this.relay = relay;
        this.worker = worker;
        this.signal = signal;
    }

    /** {@link #awaitQuiescence(Duration)} with {@link #DEFAULT_TIMEOUT}. */
    public void awaitQuiescence() {
        awaitQuiescence(DEFAULT_TIMEOUT);
    }

    /**
     * Returns once a cycle of the relay (and of the worker, if one runs) claims nothing and no outbox event is
     * PUBLISHING and no message event PROCESSING.
     *
     * @throws AssertionError after {@code timeout}, listing what is still in flight
     */
    public void awaitQuiescence(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long seen = signal.cycles();
            if (cycle()) {
                continue; // it took something: there may be more
            }
            List<String> inFlight = inFlight();
            if (inFlight.isEmpty()) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("Postbox not quiescent after " + timeout + ": still in flight "
                        + inFlight.subList(0, Math.min(LISTED, inFlight.size()))
                        + (inFlight.size() > LISTED ? " and " + (inFlight.size() - LISTED) + " more" : "")
                        + " (a lease of a stopped relay expires by the Postbox clock: advance the TestClock)");
            }
            if (!signal.awaitAfter(seen, Math.min(left, LOOK_AGAIN_NANOS))) {
                throw new AssertionError("interrupted while awaiting Postbox quiescence");
            }
        }
    }

    /** One relay cycle and one worker cycle on this thread; true if either claimed or recovered something. */
    private boolean cycle() {
        boolean busy = false;
        Relay r = relay.get();
        if (r != null) {
            busy = r.runOnce().claimed() > 0;
        }
        MessageWorker w = worker.get();
        if (w != null) {
            WorkerCycle c = w.runOnce();
            busy |= c.claimed() > 0 || c.recovered() > 0;
        }
        return busy;
    }

    /** The event_nos of outbox events PUBLISHING and (with a worker) message events PROCESSING. */
    private List<String> inFlight() {
        List<String> out = new ArrayList<>();
        String outbox = "SELECT event_no FROM %s WHERE deleted = 0 AND publish_status = %d ORDER BY id"
                .formatted(postbox.tables().outbox(), OutboxStatus.PUBLISHING.code());
        String messages = "SELECT event_no FROM %s WHERE deleted = 0 AND event_status = %d ORDER BY id"
                .formatted(postbox.tables().message(), MessageStatus.PROCESSING.code());
        try (Connection c = dataSource.get().getConnection()) {
            read(c, outbox, "outbox ", out);
            if (worker.get() != null) {
                read(c, messages, "message ", out);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostboxAwait: reading the events in flight failed: " + e.getMessage(), e);
        }
        return out;
    }

    private static void read(Connection c, String sql, String prefix, List<String> into) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                into.add(prefix + rs.getString(1));
            }
        }
    }
}
