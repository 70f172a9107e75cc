package dev.postbox.relay;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxSqlException;
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
    private final DataSource pool;
    private final HikariDataSource ownedPool;
    private final ReentrantLock cycleLock = new ReentrantLock();
    private final Object signal = new Object();
    private boolean woken;
    private volatile boolean running;
    private volatile List<OutboxRecord> inFlight = List.of();
    private Thread thread;
    private PgNotifications notifications;
    private final Runnable wakeUpHook = this::wakeUp;
    /** The outcome of an event not sent because an earlier event of its aggregate in the batch was not published. */
    private static final PublishResult HELD = PublishResult.retry("held back behind an unpublished earlier event");

    Relay(Settings settings, RelayBuilder config) {
        this.settings = settings;
        this.config = config;
        this.sender = new Sender(config.publisher, config.classifier, config.sendTimeout);
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

    /** Starts the relay's thread; returns this relay. Calling it twice is an error. */
    public synchronized Relay start() {
        if (thread != null) {
            throw new IllegalStateException("relay " + config.instanceId + " was already started");
        }
        running = true;
        thread = new Thread(this::loop, "postbox-relay-" + config.instanceId);
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

    private void loop() {
        long idleMs = config.pollMin.toMillis();
        while (running) {
            try {
                Cycle cycle = runOnce();
                if (cycle.claimed() > 0) {
                    idleMs = config.pollMin.toMillis();
                    continue;
                }
            } catch (RuntimeException e) {
                log.warn("Relay {}: cycle failed, backing off: {}", config.instanceId, e.toString());
                idleMs = Math.max(idleMs, config.pollMax.toMillis());
            }
            synchronized (signal) {
                if (!woken && running) {
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
        try {
            safely(() -> config.listener.claimed(config.instanceId, claimed.size(), Duration.ofNanos(System.nanoTime() - started)));
            List<OutboxRecord> toSend = new ArrayList<>(claimed.size());
            List<Leases.Failure> failures = new ArrayList<>();
            for (OutboxRecord r : claimed) {
                if (r.retryCount() > r.maxRetryCount()) { // its expired lease used up the last retry
                    failures.add(new Leases.Failure(r, true, "retries exhausted: " + ClaimSql.LEASE_EXPIRED, null, 0));
                } else {
                    toSend.add(r);
                }
            }
            List<PublishResult> results = followers == null ? sender.publish(toSend) : publishInWaves(toSend, failures);
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
            try {
                return record(published, failures, unknown, done, started);
            } catch (RuntimeException e) {
                giveBack(claimed, "recording failed");
                throw e;
            }
        } finally {
            inFlight = List.of();
        }
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
                List<OutboxRecord> claimed = claimIn(c, now, now.plus(config.lease));
                c.commit();
                return claimed;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("relay " + config.instanceId + " claim", e);
        }
    }

    /**
     * In ordered mode a quarter of the batch goes to heads first and the rest to the runs that follow them
     * in their aggregates, so that a backlog of few busy aggregates still fills the batch, and fewer
     * aggregates are in flight at once (which keeps the next head near the front of the index for every
     * relay). If the runs leave room, a second round of heads fills it.
     */
    private List<OutboxRecord> claimIn(Connection c, Instant now, Instant lockUntil) throws SQLException {
        int limit = config.batchSize;
        String me = config.instanceId;
        if (followers == null || limit < 4) {
            return claimer.claim(c, limit, me, now, lockUntil);
        }
        int firstHeads = limit / 4;
        List<OutboxRecord> heads = claimer.claim(c, firstHeads, me, now, lockUntil);
        if (heads.isEmpty()) {
            return heads;
        }
        java.util.TreeMap<Long, OutboxRecord> all = new java.util.TreeMap<>();
        heads.forEach(r -> all.put(r.id(), r));
        long nanos = System.nanoTime();
        if (heads.size() == firstHeads || followersFound || nanos - lastFollowerLook >= FOLLOWER_LOOK_NANOS) {
            lastFollowerLook = nanos;
            List<OutboxRecord> more = followers.claim(c, heads, config.unorderedTopics, limit - all.size(), me, now, lockUntil);
            followersFound = !more.isEmpty();
            more.forEach(r -> all.put(r.id(), r));
        }
        if (heads.size() == firstHeads && all.size() < limit) {
            claimer.claim(c, limit - all.size(), me, now, lockUntil).forEach(r -> all.put(r.id(), r));
        }
        return new ArrayList<>(all.values());
    }

    /**
     * Publishes a batch that may hold runs of one aggregate: wave n holds the n-th claimed event of every
     * aggregate, and starts only when wave n-1 is done, so no event is handed to the publisher before the
     * earlier events of its aggregate were published. An aggregate whose event was not published sends
     * nothing more in this cycle: its later events are {@link #HELD} and their leases given back. All
     * waves share one send deadline, which keeps the cycle well inside the lease.
     */
    private List<PublishResult> publishInWaves(List<OutboxRecord> batch, List<Leases.Failure> notSent) {
        int n = batch.size();
        int[] wave = new int[n];
        String[] key = new String[n];
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        int waves = 1;
        for (int i = 0; i < n; i++) {
            OutboxRecord r = batch.get(i);
            if (Followers.isOrdered(r, config.unorderedTopics)) {
                key[i] = Followers.key(r.aggregateType(), r.aggregateId());
                wave[i] = seen.merge(key[i], 1, Integer::sum) - 1;
                waves = Math.max(waves, wave[i] + 1);
            }
        }
        java.util.Set<String> stopped = new java.util.HashSet<>();
        for (Leases.Failure f : notSent) { // an event that goes DEAD unsent stops its aggregate too
            stopped.add(Followers.key(f.event().aggregateType(), f.event().aggregateId()));
        }
        if (waves == 1 && notSent.isEmpty()) {
            return sender.publish(batch);
        }
        long deadline = System.nanoTime() + config.sendTimeout.toNanos();
        PublishResult[] out = new PublishResult[n];
        boolean unknown = false;
        for (int w = 0; w < waves; w++) {
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
        Duration delay = config.retryPolicies.getOrDefault(r.eventType(), config.retryPolicy).delay(failures);
        if (result.retryAfter() != null && result.retryAfter().compareTo(delay) > 0) {
            delay = result.retryAfter();
        }
        return new Leases.Failure(r, false, reason, now.plus(delay), 1);
    }

    private Cycle record(List<OutboxRecord> published, List<Leases.Failure> failures, List<OutboxRecord> unknown,
                         Instant now, long started) {
        int recordedOk;
        int[] failedCounts;
        try (Connection c = pool.getConnection()) {
            try {
                recordedOk = leases.published(c, published, config.instanceId, now);
                failedCounts = leases.failed(c, failures, config.instanceId, now);
                if (!unknown.isEmpty()) {
                    int released = leases.release(c, unknown, config.instanceId, now);
                    if (running) {
                        log.debug("Relay {}: gave back {} leases of events held back behind an unpublished earlier event",
                                config.instanceId, released);
                    } else {
                        log.info("Relay {}: closing; gave back {} leases whose outcome was not known yet",
                                config.instanceId, released);
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
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
        Cycle cycle = new Cycle(published.size() + failures.size() + unknown.size(), recordedOk, failed, dead, fenced);
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
                    leased.size(), config.lease, e.toString());
        }
    }

    private void safely(Runnable hook) {
        try {
            hook.run();
        } catch (RuntimeException e) {
            log.warn("Relay {}: listener failed: {}", config.instanceId, e.toString());
        }
    }

    /**
     * Stops claiming, waits up to the shutdown timeout for the batch in flight, gives back the leases it
     * could not record (PENDING, or FAILED due now), and closes the relay's own pool.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        settings.wakeUps().remove(wakeUpHook);
        if (notifications != null) {
            notifications.close();
        }
        wakeUp();
        if (t != null) {
            try {
                t.join(config.shutdownTimeout.toMillis());
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(1000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<OutboxRecord> unrecorded = inFlight;
        if (!unrecorded.isEmpty()) {
            giveBack(unrecorded, "stopped with a batch in flight");
        }
        if (ownedPool != null) {
            ownedPool.close();
        }
        log.info("Relay {} stopped", config.instanceId);
    }
}
