package dev.postbox.relay;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.Settings;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Failures;
import dev.postbox.internal.poll.Heartbeat;
import dev.postbox.internal.poll.PollLoop;
import dev.postbox.internal.poll.Pools;
import dev.postbox.internal.poll.ReadCommitted;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Publishes committed outbox events: claims a batch in one short transaction, publishes it outside any transaction
 * with a timeout per send, and records every outcome with fenced writes. Any number of relays (threads or processes)
 * may run against one table. Built by {@code postbox.relay(publisher)}; {@link #start()} runs it on its own thread,
 * {@link #runOnce()} runs one cycle on the caller's. Thread-safe; {@link #close()} stops claiming, lets the batch in
 * flight finish within the shutdown timeout and gives back the leases it could not record.
 * <p>
 * Whatever a publisher, an event-bus subscriber, a retry policy or a listener throws (an {@link Error} included) is
 * contained: it becomes the failure of the events concerned, recorded with the error as reason, and the relay goes on.
 * While a batch is in flight its leases are renewed every third of the lease, so a short lease is safe and a relay
 * that dies (kill -9) holds its events for one lease only. A takeover after an expired lease is counted in
 * {@code lease_expiries}, never as a failed attempt. Failed attempts and takeovers leave a row each in the attempt
 * history ({@code biz_event_attempt}, in the transaction that records them); a heartbeat keeps the relay's row in
 * {@code biz_relay_instance} and its counts per window in {@code biz_relay_stats} ({@link RelayParts#heartbeat}). A
 * success writes nothing more.
 * <p>
 * A relay has up to {@code inFlightBatches} batches in flight, each on a thread of its own (a {@link Slot}): while one
 * batch is published and recorded the next is claimed, so a new event does not wait for the cycle before it. The
 * claims take turns; the order guard keeps every aggregate in at most one batch at a time, exactly as between two
 * relays. A wake-up starts one idle slot; a slot that claimed a full batch wakes another, since more is likely
 * waiting.
 * <p>
 * The relay keeps only its own policy: the claim ({@link BatchClaim}), the waves ({@link Waves}), the outcomes
 * ({@link Outcomes}) and their recording ({@link Recorder}); its threads, idle back-off and wake-ups are the polling
 * engine's ({@link PollLoop}).
 */
public final class Relay implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private final Settings settings;
    private final RelayConfig config;
    private final Sender sender;
    private final BatchClaim claim;
    private final Slot[] slots;
    private final Outcomes outcomes;
    private final Recorder recorder;
    private final DataSource pool;
    private final HikariDataSource ownedPool;
    private final PollLoop loop;
    private final Heartbeat heartbeat;
    /** Set when close() begins: no further wave is handed to the publisher. */
    private volatile boolean closing;
    private volatile boolean started;
    private PgNotifications notifications;
    private final Runnable wakeUpHook = this::wakeUp;

    Relay(Settings settings, RelayConfig config) {
        this.settings = settings;
        this.config = config;
        this.sender = new Sender(config.publisher(), config.classifier(), config.sendTimeout(), config.instanceId(),
                settings.tracing());
        Leases leases = new Leases(settings.dialect(), settings.tables().outbox());
        if (config.dataSource() != null) {
            this.pool = ReadCommitted.of(settings.dialect(), config.dataSource());
            this.ownedPool = null;
        } else {
            // one more connection for LISTEN, which holds it for as long as the relay runs
            this.pool = this.ownedPool = Pools.own(settings.dataSource(), "postbox-relay-" + config.instanceId(),
                    config.poolSize() + (config.listen() ? 1 : 0), settings.dialect().relayPoolInitSql(config.asyncCommit()),
                    settings.dialect().relayPoolResetSql());
        }
        this.claim = new BatchClaim(settings, config, pool);
        this.slots = new Slot[config.inFlightBatches()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(config, sender, new LeaseKeeper(config.instanceId(), pool, leases, config.lease(),
                    settings::now), () -> closing);
        }
        this.outcomes = new Outcomes(config);
        WindowStats stats = new WindowStats(LatencyBuckets.upperBounds());
        this.recorder = new Recorder(settings, config, pool, leases, () -> closing, stats);
        this.heartbeat = RelayParts.heartbeat(settings, config, pool, stats);
        this.loop = new PollLoop(config.owner(), "postbox-relay-" + config.instanceId(), slots.length,
                config.pollMin(), config.pollMax(), log);
    }

    /** The connections the relay works with (its own pool unless one was handed in); for tests. */
    DataSource pool() {
        return pool;
    }

    /** The frozen settings this relay runs with; for tests. */
    RelayConfig config() {
        return config;
    }

    /** This relay's {@code locked_by}. */
    public String instanceId() {
        return config.instanceId();
    }

    /**
     * Whether the relay's thread is working: started, not closed, and alive. False once the thread died
     * of something it could not contain (it logs why at ERROR and gives its leases back), which the
     * Spring health reports as DOWN.
     */
    public boolean isRunning() {
        return !closing && loop.isRunning();
    }

    /**
     * Whether this relay's clock is within {@code maxClockSkew} of the database's at the last measurement
     * (always true while the check is off). While false, the relay does not take over other relays'
     * expired leases (it still publishes new and due events), logs ERROR and tells its listener.
     */
    public boolean clockTrusted() {
        return claim.clockCheck().trusted();
    }

    /** The last measured offset of the database's clock against this relay's (positive: the database is ahead). */
    public Duration clockOffset() {
        return claim.clockCheck().offset();
    }

    /** Successful lease renewals so far; for tests. */
    long keeperRenewals() {
        long renewals = 0;
        for (Slot slot : slots) {
            renewals += slot.keeper.renewals();
        }
        return renewals;
    }

    /** Starts the relay's thread; returns this relay. Calling it twice, or after close(), is an error. */
    public synchronized Relay start() {
        if (started) {
            throw new IllegalStateException("relay " + config.instanceId() + " was already started");
        }
        if (closing) {
            throw new IllegalStateException("relay " + config.instanceId() + " was closed");
        }
        started = true;
        loop.start(i -> new PollLoop.Body() {
            private final Slot slot = slots[i];

            @Override
            public PollLoop.Outcome turn() {
                if (closing) { // close() began and is closing the notifications first: claim nothing more
                    return PollLoop.Outcome.NONE;
                }
                return run(slot).claimed() > 0 ? PollLoop.Outcome.MORE : PollLoop.Outcome.NONE;
            }

            @Override
            public void exit(Throwable died) {
                List<OutboxRecord> unrecorded = slot.inFlight;
                if (!unrecorded.isEmpty()) {
                    recorder.giveBack(unrecorded, died == null ? "stopped with a batch in flight"
                            : "thread died with a batch in flight");
                }
            }
        });
        settings.wakeUps().add(wakeUpHook);
        heartbeat.start();
        if (RelayParts.listens(config, settings)) {
            notifications = new PgNotifications(pool, settings.tables().outbox(), this::wakeUp, config.instanceId()).start();
        }
        log.info("Relay {} started: batch {}, {} in flight, lease {}, send timeout {}, {} ({})", config.instanceId(),
                config.batchSize(), slots.length, config.lease(), config.sendTimeout(), config.ordered() ? "ordered per aggregate" : "unordered",
                settings.dialect().name());
        return this;
    }

    /**
     * Ends the idle wait of one of the relay's threads at once (after a commit in this JVM, or a database
     * notification); when all are busy, the next to finish claims again at once.
     */
    public void wakeUp() {
        loop.wakeUpOne();
    }

    /**
     * Runs one cycle on the calling thread: claim up to the batch size, publish, record. Serialized with
     * the relay's first thread (the others may run a cycle meanwhile, as another relay would).
     */
    public Cycle runOnce() {
        return run(slots[0]);
    }

    private Cycle run(Slot slot) {
        slot.cycleLock.lock();
        try {
            return cycle(slot);
        } finally {
            slot.cycleLock.unlock();
        }
    }

    private Cycle cycle(Slot slot) {
        long started = System.nanoTime();
        List<OutboxRecord> claimed = claim.claim(settings.now());
        if (claimed.isEmpty()) {
            return Cycle.EMPTY;
        }
        if (claimed.size() >= config.batchSize() && slots.length > 1) {
            loop.wakeUpOne(); // a full batch: more is likely waiting, and another slot can claim it now
        }
        LeaseKeeper keeper = slot.keeper;
        slot.inFlight = claimed;
        keeper.begin(claimed, started, System.nanoTime() + config.sendTimeout().toNanos());
        try {
            return publishAndRecord(slot, claimed, started);
        } catch (Throwable e) { // anything not contained below: the leases go back now, not after the lease
            keeper.end();
            recorder.giveBack(claimed, "cycle failed (" + Failures.describe(e) + ")");
            throw e;
        } finally {
            keeper.end();
            slot.inFlight = List.of();
        }
    }

    private Cycle publishAndRecord(Slot slot, List<OutboxRecord> claimed, long started) {
        Failures.safely(log, config.owner(), () -> config.listener().claimed(config.instanceId(), claimed.size(),
                Duration.ofNanos(System.nanoTime() - started)));
        Outcomes.Split split = outcomes.split(claimed);
        List<PublishResult> results = slot.waves.publish(split.toSend(), split.failures());
        Instant done = settings.now();
        Outcomes.Sorted sorted = outcomes.sort(split.toSend(), results, split.failures(), done);
        slot.keeper.end();
        return recorder.record(sorted, done, started, split.takenOver());
    }

    /**
     * Stops claiming and sending: no wave is handed to the publisher after close() began. Waits for the
     * relay thread (and a {@link #runOnce()} on another thread) to finish the batch in flight: up to the
     * shutdown timeout, then the thread is interrupted (sends still open become unknown outcomes whose
     * leases are given back) and waited for up to one more send timeout; close() returns only when the
     * thread is done, or after that bound with a WARN if a publisher ignores interrupts (the leases it
     * holds then expire). Gives back the leases it could not record (PENDING, or FAILED due now) and closes
     * the relay's own pool.
     */
    @Override
    public void close() {
        synchronized (this) {
            closing = true;
        }
        settings.wakeUps().remove(wakeUpHook);
        if (notifications != null) {
            notifications.close();
        }
        boolean stillWorking = !loop.close(config.shutdownTimeout(), config.sendTimeout().plusSeconds(1)).isEmpty()
                || !runOnceDone();
        for (Slot slot : slots) {
            slot.keeper.close();
        }
        sender.close();
        heartbeat.close(); // the last window and the stopped time, before the pool closes
        if (stillWorking) {
            log.warn("Relay {}: still publishing after the shutdown timeout {} plus the send timeout {} (a publisher"
                    + " that ignores interrupts); not waiting longer: its leases expire after {}", config.instanceId(),
                    config.shutdownTimeout(), config.sendTimeout(), config.lease());
        }
        if (ownedPool != null) {
            ownedPool.close();
        }
        if (started) { // a relay only built (a check of its settings) or run by runOnce() never said it started
            log.info("Relay {} stopped", config.instanceId());
        }
    }

    /** Waits for a {@link #runOnce()} on another thread, with the same bound as the relay thread's. */
    private boolean runOnceDone() {
        try {
            long ms = config.shutdownTimeout().toMillis() + config.sendTimeout().toMillis();
            ReentrantLock first = slots[0].cycleLock;
            if (first.tryLock(ms, TimeUnit.MILLISECONDS)) {
                first.unlock();
                return true;
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true; // interrupted: not waiting any longer for a caller's cycle
        }
    }
}
