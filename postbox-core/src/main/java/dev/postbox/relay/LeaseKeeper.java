package dev.postbox.relay;

import dev.postbox.internal.poll.DaemonThreads;
import dev.postbox.internal.poll.Failures;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.outbox.OutboxRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Renews the leases of the batch in flight every third of the lease (one fenced UPDATE on the relay's
 * pool), so that a short lease is safe however long the batch takes, while a relay that dies stops
 * renewing and its events move again one lease after it died. Renewal stops when the relay thread does
 * not come back from a send within the send timeout (a publisher stuck in a synchronous call does not
 * hold its aggregates forever). When a renewal finds a lease taken over, or the last successful renewal
 * is a lease old, the lease no longer {@link #holds()} and the relay sends no further wave of the batch.
 * Thread-safe: the relay thread begins and ends batches, one timer thread renews.
 */
final class LeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final String owner;
    private final DataSource pool;
    private final Leases leases;
    private final Duration lease;
    private final Supplier<Instant> clock;
    private final ScheduledExecutorService timer;
    private final Object lock = new Object();
    private List<OutboxRecord> batch = List.of();
    /** Renewals stop after this {@link System#nanoTime()}: the relay thread is overdue. */
    private volatile long renewUntil;
    /** The leases held until this {@link System#nanoTime()} by the last claim or renewal. */
    private volatile long validUntil;
    private volatile boolean lost;
    private volatile long renewals;

    LeaseKeeper(String owner, DataSource pool, Leases leases, Duration lease, Supplier<Instant> clock) {
        this.owner = owner;
        this.pool = pool;
        this.leases = leases;
        this.lease = lease;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("postbox-relay-" + owner + "-lease"));
        long every = Math.max(1, interval(lease).toMillis());
        timer.scheduleWithFixedDelay(this::renewSafely, every, every, TimeUnit.MILLISECONDS);
    }

    /** How often leases are renewed: a third of the lease. */
    static Duration interval(Duration lease) {
        return lease.dividedBy(3);
    }

    /** A batch was claimed at {@code claimedAt} (a nanoTime); renewals may run until {@code busyUntil}. */
    void begin(List<OutboxRecord> claimed, long claimedAt, long busyUntil) {
        synchronized (lock) {
            batch = claimed;
            lost = false;
            validUntil = claimedAt + lease.toNanos();
            renewUntil = busyUntil;
        }
    }

    /** The relay thread is busy until {@code busyUntil} (a nanoTime), e.g. a wave's send deadline. */
    void busyUntil(long busyUntil) {
        renewUntil = busyUntil;
    }

    /** The batch is done (its outcomes are about to be recorded); waits for a renewal in progress. */
    void end() {
        synchronized (lock) {
            batch = List.of();
        }
    }

    /** Whether the batch's leases are still this relay's: none found taken over, and renewed within the lease. */
    boolean holds() {
        return !lost && System.nanoTime() - validUntil < 0;
    }

    /** Successful renewals so far (for tests and logs). */
    long renewals() {
        return renewals;
    }

    private void renewSafely() {
        try {
            renew();
        } catch (Throwable e) { // the timer must survive anything, or renewals would stop for good
            log.warn("Relay {}: renewing leases failed: {}", owner, Failures.describe(e));
        }
    }

    private void renew() {
        synchronized (lock) {
            List<OutboxRecord> current = batch;
            if (current.isEmpty() || lost || System.nanoTime() - renewUntil > 0) {
                return;
            }
            long started = System.nanoTime();
            Instant now = clock.get();
            int held = Transactions.inTransaction(pool, "relay " + owner + " renewing " + current.size() + " leases",
                    c -> leases.renew(c, current, owner, now.plus(lease), now));
            if (held < current.size()) {
                lost = true;
                log.warn("Relay {}: {} of {} leases of the batch in flight were taken over; sending no further wave",
                        owner, current.size() - held, current.size());
            } else {
                validUntil = started + lease.toNanos();
                renewals++;
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
