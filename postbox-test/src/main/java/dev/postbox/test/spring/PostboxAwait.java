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
    private final ConsumedSignal consumed;

    PostboxAwait(Postbox postbox, Supplier<DataSource> dataSource, Supplier<Relay> relay, Supplier<MessageWorker> worker,
                 CycleSignal signal, ConsumedSignal consumed) {
        this.postbox = postbox;
        this.dataSource = dataSource;
        this.relay = relay;
        this.worker = worker;
        this.signal = signal;
        this.consumed = consumed;
    }

    /** {@link #awaitConsumed(Duration, String, String...)} with {@link #DEFAULT_TIMEOUT}. */
    public void awaitConsumed(String consumer, String... eventNos) {
        awaitConsumed(DEFAULT_TIMEOUT, consumer, eventNos);
    }

    /**
     * Returns once {@code consumer} (a {@code @PostboxListener}'s consumer, or any consumer writing Postbox's consume
     * log) has consumed every one of {@code eventNos}: its consume-log rows are committed. Meanwhile it drives the
     * relay as {@link #awaitQuiescence()} does and waits for the next delivery to a listener, never sleeping; with
     * {@code @PostboxTest(publishTo = TRANSPORTS)} this is how a test waits for a consumer behind a real broker.
     *
     * @throws AssertionError at once when one of the events is DEAD in this application's outbox (naming its reason),
     *                        or after {@code timeout}, naming the events not consumed and the consumer's last failure
     */
    public void awaitConsumed(Duration timeout, String consumer, String... eventNos) {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(consumer, "consumer");
        if (eventNos.length == 0) {
            throw new IllegalArgumentException("eventNos: name at least one event");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long seen = consumed.deliveries();
            cycle();
            List<String> missing = notConsumed(consumer, List.of(eventNos));
            if (missing.isEmpty()) {
                return;
            }
            for (String no : missing) {
                postbox.queries().outbox().byEventNo(no).filter(r -> r.status() == OutboxStatus.DEAD).ifPresent(r -> {
                    throw new AssertionError("consumer '" + consumer + "' cannot consume " + no + ": the event is DEAD in"
                            + " the outbox (" + r.failReason() + ")");
                });
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                String failure = consumed.lastFailure(consumer);
                throw new AssertionError("consumer '" + consumer + "' has not consumed " + missing + " after " + timeout
                        + (failure == null ? " (no delivery to it failed)" : "; its last failure: " + failure));
            }
            if (!consumed.awaitAfter(seen, Math.min(left, LOOK_AGAIN_NANOS))) {
                throw new AssertionError("interrupted while awaiting consumer '" + consumer + "'");
            }
        }
    }

    /** The event_nos of {@code eventNos} the consume log has no row of {@code consumer} for. */
    private List<String> notConsumed(String consumer, List<String> eventNos) {
        List<String> missing = new ArrayList<>(eventNos);
        String sql = "SELECT event_no FROM %s WHERE consumer = ? AND event_no IN (%s)".formatted(
                postbox.tables().consumeLog(), String.join(",", java.util.Collections.nCopies(eventNos.size(), "?")));
        try (Connection c = dataSource.get().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, consumer);
            for (int i = 0; i < eventNos.size(); i++) {
                ps.setString(i + 2, eventNos.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    missing.remove(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostboxAwait: reading the consume log failed: " + e.getMessage(), e);
        }
        return missing;
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
