package dev.postbox.relay;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.RetryPolicy;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.spi.PublishResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Publishes committed outbox events: claims a batch in one short transaction, publishes it outside any
 * transaction with a timeout per send, and records every outcome with fenced writes. Any number of
 * relays (threads or processes) may run against one table. Built by {@code postbox.relay(publisher)};
 * {@link #start()} runs it on its own thread, {@link #runOnce()} runs one cycle on the caller's.
 * Thread-safe; {@link #close()} stops claiming, lets the batch in flight finish within the shutdown
 * timeout and gives back the leases it could not record.
 * <p>
 * Whatever a publisher, an event-bus subscriber, a retry policy or a listener throws (an {@link Error}
 * included) is contained: it becomes the failure of the events concerned, recorded with the error as
 * reason, and the relay goes on. While a batch is in flight its leases are renewed every third of the
 * lease, so a short lease is safe and a relay that dies (kill -9) holds its events for one lease only.
 * A takeover after an expired lease is counted in {@code lease_expiries}, never as a failed attempt.
 */
public final class Relay implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    /** Serializes claims of strategies that need it ({@link Claimer#serialized()}) within this JVM. */
    private static final ReentrantLock SERIAL_CLAIMS = new ReentrantLock();

    private final Settings settings;
    private final RelayBuilder config;
    private final Sender sender;
    private final Claimer claimer;
    /** Claims the runs that follow claimed heads; null in unordered mode. */
    private final Followers followers;
    /**
     * A steady trickle of events rarely has followers, and looking costs a round trip on every claim;
     * runs are looked for when the heads fill their share, when the last look found some, and otherwise
     * at most every {@link #FOLLOWER_LOOK_NANOS}. Skipping a look is always safe: followers are claimed
     * later as heads. Touched by the claiming thread only (claims are serialized by the cycle lock).
     */
    private boolean followersFound = true;
    private long lastFollowerLook;
    private static final long FOLLOWER_LOOK_NANOS = 100_000_000L;
    private final Leases leases;
    private final LeaseKeeper keeper;
    private final ClockCheck clockCheck;
    private final DataSource pool;
    private final HikariDataSource ownedPool;
    private final ReentrantLock cycleLock = new ReentrantLock();
    private final Object signal = new Object();
    private boolean woken;
    private volatile boolean running;
    /** Set when close() begins: no further wave is handed to the publisher. */
    private volatile boolean closing;
    private volatile Throwable died;
    private volatile List<OutboxRecord> inFlight = List.of();
    private Thread thread;
    private PgNotifications notifications;
    private final Runnable wakeUpHook = this::wakeUp;
    /** The outcome of an event not sent because an earlier event of its aggregate in the batch was not published. */
    private static final PublishResult HELD = PublishResult.retry("held back behind an unpublished earlier event");

    Relay(Settings settings, RelayBuilder config) {
        this.settings = settings;
        this.config = config;
        this.sender = new Sender(config.publisher, config.classifier, config.sendTimeout, config.instanceId);
        this.claimer = Claimer.forDialect(settings.dialect(), settings.tables().outbox(), config.ordered,
                config.unorderedTopics);
        this.followers = config.ordered ? Claimer.followers(settings.dialect(), settings.tables().outbox(),
                config.unorderedTopics) : null;
        this.leases = new Leases(settings.dialect(), settings.tables().outbox());
        if (config.dataSource != null) {
            this.pool = config.dataSource;
            this.ownedPool = null;
        } else {
            this.ownedPool = ownPool(settings.dataSource(), config, settings.dialect() == dev.postbox.jdbc.Dialect.POSTGRESQL);
            this.pool = ownedPool;
        }
        this.clockCheck = new ClockCheck(settings.dialect(), config.clockSkewCheck ? config.maxClockSkew : null);
        this.keeper = new LeaseKeeper(config.instanceId, pool, leases, config.lease, settings::now);
    }

    private boolean listens() {
        return config.listen && settings.dialect() == dev.postbox.jdbc.Dialect.POSTGRESQL && pgDriverPresent();
    }

    private static boolean pgDriverPresent() {
        try {
            Class.forName("org.postgresql.PGConnection", false, Relay.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static HikariDataSource ownPool(DataSource app, RelayBuilder config, boolean postgres) {
        HikariConfig cfg = new HikariConfig();
        if (app instanceof HikariDataSource hikari) {
            hikari.copyStateTo(cfg); // same database and credentials, but never the same connections
        } else {
            cfg.setDataSource(app);
        }
        cfg.setPoolName("postbox-relay-" + config.instanceId);
        // one more connection for LISTEN, which holds it for as long as the relay runs
        cfg.setMaximumPoolSize(config.poolSize + (config.listen ? 1 : 0));
        cfg.setMinimumIdle(1);
        cfg.setAutoCommit(false);
        cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        cfg.setRegisterMbeans(false);
        if (postgres) {
            // A generic plan cached while the table was small (or never analyzed) can turn the order guard
            // into a scan per candidate as the backlog grows; custom plans follow the table's real size.
            // Asynchronous commit: see RelayBuilder#asyncCommit (PostgresCrashTest proves it loses nothing).
            cfg.setConnectionInitSql("SET plan_cache_mode = force_custom_plan"
                    + (config.asyncCommit ? "; SET synchronous_commit = off" : ""));
            // SET is transactional in PostgreSQL: Hikari must commit the init statements, or the first
            // rollback of the connection would undo them
            cfg.setIsolateInternalQueries(true);
        }
        return new HikariDataSource(cfg);
    }

    /** The connections the relay works with (its own pool unless one was handed in); for tests. */
    DataSource pool() {
        return pool;
    }

    /** This relay's {@code locked_by}. */
    public String instanceId() {
        return config.instanceId;
    }

    /**
     * Whether the relay's thread is working: started, not closed, and alive. False once the thread died
     * of something it could not contain (it logs why at ERROR and gives its leases back), which the
     * Spring health reports as DOWN.
     */
    public boolean isRunning() {
        Thread t = thread;
        return running && !closing && t != null && t.isAlive() && died == null;
    }

    /**
     * Whether this relay's clock is within {@code maxClockSkew} of the database's at the last measurement
     * (always true while the check is off). While false, the relay does not take over other relays'
     * expired leases (it still publishes new and due events), logs ERROR and tells its listener.
     */
    public boolean clockTrusted() {
        return clockCheck.trusted();
    }

    /** The last measured offset of the database's clock against this relay's (positive: the database is ahead). */
    public Duration clockOffset() {
        return clockCheck.offset();
    }

    /** Successful lease renewals so far; for tests. */
    long keeperRenewals() {
        return keeper.renewals();
    }

    /** Starts the relay's thread; returns this relay. Calling it twice is an error. */
    public synchronized Relay start() {
        if (thread != null) {
            throw new IllegalStateException("relay " + config.instanceId + " was already started");
        }
        if (closing) {
            throw new IllegalStateException("relay " + config.instanceId + " was closed");
        }
        running = true;
        thread = new Thread(this::run, "postbox-relay-" + config.instanceId);
        thread.setDaemon(true);
        thread.start();
        settings.wakeUps().add(wakeUpHook);
        if (listens()) {
            notifications = new PgNotifications(pool, settings.tables().outbox(), this::wakeUp, config.instanceId).start();
        }
        log.info("Relay {} started: batch {}, lease {}, send timeout {}, {} ({})", config.instanceId, config.batchSize,
                config.lease, config.sendTimeout, config.ordered ? "ordered per aggregate" : "unordered",
                settings.dialect().name());
        return this;
    }

    /** Ends the current idle wait at once (after a commit in this JVM, or a database notification). */
    public void wakeUp() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void run() {
        try {
            loop();
        } catch (Throwable e) { // last resort: the loop contains everything it can
            died = e;
            log.error("Relay {}: thread died: {}", config.instanceId, describe(e), e);
        } finally {
            if (!closing && died == null) {
                died = new IllegalStateException("relay thread ended while not closing");
                log.error("Relay {}: thread ended while the relay was not closed", config.instanceId);
            }
            List<OutboxRecord> unrecorded = inFlight;
            if (!unrecorded.isEmpty()) {
                giveBack(unrecorded, closing ? "stopped with a batch in flight" : "thread died with a batch in flight");
            }
        }
    }

    private void loop() {
        long idleMs = config.pollMin.toMillis();
        while (running && !closing) {
            try {
                Cycle cycle = runOnce();
                if (cycle.claimed() > 0) {
                    idleMs = config.pollMin.toMillis();
                    continue;
                }
            } catch (Throwable e) { // an Error as well: the next cycle may well succeed
                log.warn("Relay {}: cycle failed, backing off: {}", config.instanceId, describe(e));
                idleMs = Math.max(idleMs, config.pollMax.toMillis());
            }
            synchronized (signal) {
                if (!woken && running && !closing) {
                    try {
                        signal.wait(Math.max(1, idleMs));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (woken) {
                    woken = false;
                    idleMs = config.pollMin.toMillis();
                } else {
                    idleMs = Math.min(idleMs * 2, config.pollMax.toMillis());
                }
            }
        }
    }

    /**
     * Runs one cycle on the calling thread: claim up to the batch size, publish, record. Serialized with
     * the relay's own thread.
     */
    public Cycle runOnce() {
        cycleLock.lock();
        try {
            return cycle();
        } finally {
            cycleLock.unlock();
        }
    }

    private Cycle cycle() {
        long started = System.nanoTime();
        Instant now = settings.now();
        List<OutboxRecord> claimed = claim(now);
        if (claimed.isEmpty()) {
            return Cycle.EMPTY;
        }
        inFlight = claimed;
        keeper.begin(claimed, started, System.nanoTime() + config.sendTimeout.toNanos());
        try {
            return publishAndRecord(claimed, started);
        } catch (Throwable e) { // anything not contained below: the leases go back now, not after the lease
            keeper.end();
            giveBack(claimed, "cycle failed (" + describe(e) + ")");
            throw e;
        } finally {
            keeper.end();
            inFlight = List.of();
        }
    }

    private Cycle publishAndRecord(List<OutboxRecord> claimed, long started) {
        safely(() -> config.listener.claimed(config.instanceId, claimed.size(), Duration.ofNanos(System.nanoTime() - started)));
        List<OutboxRecord> toSend = new ArrayList<>(claimed.size());
        List<Leases.Failure> failures = new ArrayList<>();
        int takenOver = 0;
        for (OutboxRecord r : claimed) {
            if (ClaimSql.LEASE_EXPIRED.equals(r.failReason())) {
                takenOver++;
                safely(() -> config.listener.leaseExpired(r, r.leaseExpiries()));
            }
            if (r.leaseExpiries() > config.maxLeaseExpiries) { // every relay holding it stopped: maybe it kills them
                failures.add(new Leases.Failure(r, true, "taken over " + r.leaseExpiries() + " times after its relay's"
                        + " lease expired without an outcome (limit " + config.maxLeaseExpiries + "); the event may"
                        + " crash relays: not published again until a person retries it", null, 0));
            } else if (r.retryCount() > r.maxRetryCount()) { // retried by hand past its retries, then taken over
                failures.add(new Leases.Failure(r, true, "retries exhausted: " + ClaimSql.LEASE_EXPIRED, null, 0));
            } else {
                toSend.add(r);
            }
        }
        List<PublishResult> results = publishInWaves(toSend, failures);
        Instant done = settings.now();
        List<OutboxRecord> published = new ArrayList<>(toSend.size());
        List<OutboxRecord> unknown = new ArrayList<>();
        for (int i = 0; i < toSend.size(); i++) {
            OutboxRecord r = toSend.get(i);
            PublishResult result = results.get(i);
            if (result == null || result == HELD) {
                unknown.add(r);
            } else if (result.kind() == PublishResult.Kind.PUBLISHED) {
                published.add(r);
            } else {
                failures.add(failure(r, result, done));
            }
        }
        keeper.end();
        return record(published, failures, unknown, done, started, takenOver);
    }

    private List<OutboxRecord> claim(Instant now) {
        if (!claimer.serialized()) {
            return claimTx(now);
        }
        SERIAL_CLAIMS.lock();
        try {
            return claimTx(now);
        } finally {
            SERIAL_CLAIMS.unlock();
        }
    }

    private List<OutboxRecord> claimTx(Instant now) {
        try (Connection c = pool.getConnection()) {
            try {
                if (clockCheck.due()) {
                    checkClock(c);
                }
                Instant takeoverBefore = clockCheck.trusted() ? now : ClockCheck.NO_TAKEOVER;
                List<OutboxRecord> claimed = claimIn(c, now, takeoverBefore, now.plus(config.lease));
                c.commit();
                return claimed;
            } catch (SQLException | RuntimeException e) {
                rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("relay " + config.instanceId + " claim", e);
        }
    }

    private void checkClock(Connection c) throws SQLException {
        if (!clockCheck.check(c, settings::now)) {
            return;
        }
        Duration offset = clockCheck.offset();
        if (clockCheck.trusted()) {
            log.info("Relay {}: clock within {} of the database's again (offset {}); taking over expired leases again",
                    config.instanceId, clockCheck.bound(), offset);
        } else {
            log.error("Relay {}: clock is {} {} the database's, beyond the bound of {}: this relay does not take"
                    + " over other relays' expired leases until its clock is corrected (fix NTP on this host)",
                    config.instanceId, offset.abs(), offset.isNegative() ? "ahead of" : "behind", clockCheck.bound());
        }
        safely(() -> config.listener.clockSkew(config.instanceId, offset, clockCheck.bound(), clockCheck.trusted()));
    }

    /**
     * In ordered mode a quarter of the batch goes to heads first and the rest to the runs that follow them
     * in their aggregates, so that a backlog of few busy aggregates still fills the batch, and fewer
     * aggregates are in flight at once (which keeps the next head near the front of the index for every
     * relay). If the runs leave room, a second round of heads fills it.
     */
    private List<OutboxRecord> claimIn(Connection c, Instant now, Instant takeoverBefore, Instant lockUntil)
            throws SQLException {
        int limit = config.batchSize;
        String me = config.instanceId;
        if (followers == null || limit < 4) {
            return claimer.claim(c, limit, me, now, takeoverBefore, lockUntil);
        }
        int firstHeads = limit / 4;
        List<OutboxRecord> heads = claimer.claim(c, firstHeads, me, now, takeoverBefore, lockUntil);
        if (heads.isEmpty()) {
            return heads;
        }
        java.util.TreeMap<Long, OutboxRecord> all = new java.util.TreeMap<>();
        heads.forEach(r -> all.put(r.id(), r));
        long nanos = System.nanoTime();
        if (heads.size() == firstHeads || followersFound || nanos - lastFollowerLook >= FOLLOWER_LOOK_NANOS) {
            lastFollowerLook = nanos;
            List<OutboxRecord> more = followers.claim(c, heads, config.unorderedTopics, limit - all.size(), me, now,
                    takeoverBefore, lockUntil);
            followersFound = !more.isEmpty();
            more.forEach(r -> all.put(r.id(), r));
        }
        if (heads.size() == firstHeads && all.size() < limit) {
            claimer.claim(c, limit - all.size(), me, now, takeoverBefore, lockUntil).forEach(r -> all.put(r.id(), r));
        }
        return new ArrayList<>(all.values());
    }

    /**
     * Publishes a batch that may hold runs of one aggregate: wave n holds the n-th claimed event of every
     * aggregate, and starts only when wave n-1 is done, so no event is handed to the publisher before the
     * earlier events of its aggregate were published. An aggregate whose event was not published sends
     * nothing more in this cycle: its later events are {@link #HELD} and their leases given back. Each
     * wave has its own send deadline; the leases stay safe because they are renewed while the waves run
     * ({@link LeaseKeeper}), and no further wave starts once close() began or the leases no longer hold
     * (its events' outcomes are unknown: their leases are given back). Unordered mode is one wave.
     */
    private List<PublishResult> publishInWaves(List<OutboxRecord> batch, List<Leases.Failure> notSent) {
        int n = batch.size();
        int[] wave = new int[n];
        String[] key = new String[n];
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        int waves = 1;
        if (followers != null) {
            for (int i = 0; i < n; i++) {
                OutboxRecord r = batch.get(i);
                if (Followers.isOrdered(r, config.unorderedTopics)) {
                    key[i] = Followers.key(r.aggregateType(), r.aggregateId());
                    wave[i] = seen.merge(key[i], 1, Integer::sum) - 1;
                    waves = Math.max(waves, wave[i] + 1);
                }
            }
        }
        java.util.Set<String> stopped = new java.util.HashSet<>();
        if (followers != null) {
            for (Leases.Failure f : notSent) { // an event that goes DEAD unsent stops its aggregate too
                stopped.add(Followers.key(f.event().aggregateType(), f.event().aggregateId()));
            }
        }
        PublishResult[] out = new PublishResult[n];
        boolean unknown = false;
        for (int w = 0; w < waves; w++) {
            if (!unknown && (closing || !keeper.holds())) {
                unknown = true; // closing, or the leases may be someone else's now: send nothing further
                if (!closing) {
                    log.warn("Relay {}: leases of the batch in flight could not be renewed; giving back the events"
                            + " not sent yet", config.instanceId);
                }
            }
            List<Integer> members = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (wave[i] != w) {
                    continue;
                }
                if (unknown || (key[i] != null && stopped.contains(key[i]))) {
                    out[i] = unknown ? null : HELD;
                } else {
                    members.add(i);
                }
            }
            if (members.isEmpty()) {
                continue;
            }
            long deadline = System.nanoTime() + config.sendTimeout.toNanos();
            keeper.busyUntil(deadline + LeaseKeeper.interval(config.lease).toNanos());
            List<PublishResult> results = sender.publish(members.stream().map(batch::get).toList(), deadline);
            for (int j = 0; j < members.size(); j++) {
                int i = members.get(j);
                PublishResult result = results.get(j);
                out[i] = result;
                if (result == null) {
                    unknown = true; // closing: nothing further is sent
                } else if (result.kind() != PublishResult.Kind.PUBLISHED && key[i] != null) {
                    stopped.add(key[i]);
                }
            }
        }
        return java.util.Arrays.asList(out);
    }

    private Leases.Failure failure(OutboxRecord r, PublishResult result, Instant now) {
        String reason = Check.clip(result.reason(), 1000);
        int failures = r.retryCount() + 1;
        if (result.kind() == PublishResult.Kind.DEAD) {
            return new Leases.Failure(r, true, reason, null, 1);
        }
        if (failures > r.maxRetryCount()) {
            return new Leases.Failure(r, true, Check.clip("retries exhausted (" + r.maxRetryCount() + "): " + reason, 1000), null, 1);
        }
        Duration delay = delay(r, failures);
        if (result.retryAfter() != null && result.retryAfter().compareTo(delay) > 0) {
            delay = result.retryAfter();
        }
        return new Leases.Failure(r, false, reason, dev.postbox.internal.Instants.plus(now, delay), 1);
    }

    /** The retry policy's delay; a policy that throws or answers nothing falls back to the default, with a WARN. */
    private Duration delay(OutboxRecord r, int failures) {
        RetryPolicy policy = config.retryPolicies.getOrDefault(r.eventType(), config.retryPolicy);
        try {
            Duration d = policy.delay(failures);
            if (d != null && !d.isNegative()) {
                return d;
            }
            log.warn("Relay {}: retry policy for {} answered {} for failure {}; using the default policy",
                    config.instanceId, r.eventType(), d, failures);
        } catch (Throwable e) {
            log.warn("Relay {}: retry policy for {} failed for failure {}; using the default policy: {}",
                    config.instanceId, r.eventType(), failures, describe(e));
        }
        return DEFAULT_RETRY.delay(failures);
    }

    private static final RetryPolicy DEFAULT_RETRY = RetryPolicy.exponential();

    private Cycle record(List<OutboxRecord> published, List<Leases.Failure> failures, List<OutboxRecord> unknown,
                         Instant now, long started, int takenOver) {
        int recordedOk;
        int[] failedCounts;
        try (Connection c = pool.getConnection()) {
            try {
                recordedOk = leases.published(c, published, config.instanceId, now);
                failedCounts = leases.failed(c, failures, config.instanceId, now);
                if (!unknown.isEmpty()) {
                    int released = leases.release(c, unknown, config.instanceId, now);
                    if (!closing) {
                        log.debug("Relay {}: gave back {} leases of events held back behind an unpublished earlier event",
                                config.instanceId, released);
                    } else {
                        log.info("Relay {}: closing; gave back {} leases whose outcome was not known yet",
                                config.instanceId, released);
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("relay " + config.instanceId + " recording claimed=" + (published.size()
                    + failures.size()) + ", published=" + published.size() + ", failed=" + failures.size(), e);
        }
        int fenced = published.size() - recordedOk;
        int failed = 0;
        int dead = 0;
        for (int i = 0; i < failures.size(); i++) {
            Leases.Failure f = failures.get(i);
            if (failedCounts[i] == 0) {
                fenced++;
                continue;
            }
            if (f.dead()) {
                dead++;
                safely(() -> config.listener.dead(f.event(), f.reason()));
            } else {
                failed++;
                safely(() -> config.listener.failed(f.event(), f.reason(), f.nextRetry()));
            }
        }
        for (OutboxRecord r : published) {
            safely(() -> config.listener.published(r, Duration.between(r.createTime(), now)));
        }
        if (fenced > 0) {
            log.warn("Relay {}: {} outcomes not recorded: their leases expired and another relay took them over",
                    config.instanceId, fenced);
        }
        Cycle cycle = new Cycle(published.size() + failures.size() + unknown.size(), recordedOk, failed, dead, fenced,
                takenOver);
        safely(() -> config.listener.batch(config.instanceId, cycle.claimed(), cycle.published(), cycle.failed(),
                cycle.dead(), Duration.ofNanos(System.nanoTime() - started)));
        return cycle;
    }

    /** Best effort: returns leases at once instead of leaving them to expire; they expire anyway if this fails. */
    private void giveBack(List<OutboxRecord> leased, String why) {
        try (Connection c = pool.getConnection()) {
            int released = leases.release(c, leased, config.instanceId, settings.now());
            c.commit();
            log.info("Relay {}: {}; gave back {} of {} leases", config.instanceId, why, released, leased.size());
        } catch (SQLException | RuntimeException e) {
            log.warn("Relay {}: {}; could not give back {} leases, they expire after {}: {}", config.instanceId, why,
                    leased.size(), config.lease, describe(e));
        }
    }

    private void safely(Runnable hook) {
        try {
            hook.run();
        } catch (Throwable e) { // an Error of a listener is logged like any exception: the relay goes on
            log.warn("Relay {}: listener failed: {}", config.instanceId, describe(e));
        }
    }

    /** Rolls back after {@code failure}; a failing rollback (the connection is gone) must not hide the first cause. */
    static void rollback(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * {@code e} for a log line, with the first cause of its chain when that says more: during a database
     * crash the claim fails with the server's own reason ("terminating connection due to administrator
     * command", "Connection refused"), which is what a person needs to read.
     */
    static String describe(Throwable e) {
        Throwable root = e;
        java.util.Set<Throwable> seen = new java.util.HashSet<>();
        while (seen.add(root)) {
            Throwable next = root.getCause();
            if (next == null && root instanceof SQLException sql) {
                next = sql.getNextException();
            }
            if (next == null) {
                break;
            }
            root = next;
        }
        return root == e ? e.toString() : e + " (cause: " + root + ")";
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
        Thread t;
        synchronized (this) {
            closing = true;
            running = false;
            t = thread;
        }
        settings.wakeUps().remove(wakeUpHook);
        if (notifications != null) {
            notifications.close();
        }
        wakeUp();
        boolean stillWorking = false;
        try {
            if (t != null) {
                t.join(config.shutdownTimeout.toMillis());
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(config.sendTimeout.toMillis() + 1000);
                }
                stillWorking = t.isAlive();
            }
            // a runOnce() on another thread: the same bound
            if (!stillWorking && cycleLock.tryLock(config.shutdownTimeout.toMillis() + config.sendTimeout.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS)) {
                cycleLock.unlock();
            } else {
                stillWorking = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stillWorking = t != null && t.isAlive();
        }
        keeper.close();
        sender.close();
        if (stillWorking) {
            log.warn("Relay {}: still publishing after the shutdown timeout {} plus the send timeout {} (a publisher"
                    + " that ignores interrupts); not waiting longer: its leases expire after {}", config.instanceId,
                    config.shutdownTimeout, config.sendTimeout, config.lease);
        }
        if (ownedPool != null) {
            ownedPool.close();
        }
        log.info("Relay {} stopped", config.instanceId);
    }
}
