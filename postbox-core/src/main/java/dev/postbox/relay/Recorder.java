package dev.postbox.relay;

import dev.postbox.internal.AttemptLog;
import dev.postbox.internal.Settings;
import dev.postbox.internal.WindowStats;
import dev.postbox.internal.poll.Failures;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.tracing.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Records the outcomes of a cycle with fenced writes in one transaction, tells the listener what was
 * recorded, and gives back leases whose outcome is not known. An outcome this relay can no longer record
 * (its lease was taken over meanwhile) is counted as fenced and logged, never written. Each failure it did
 * record gets its row in the attempt history in the same transaction (one JDBC batch per cycle); what was
 * recorded is counted into the heartbeat's window.
 */
final class Recorder {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private final Settings settings;
    private final RelayConfig config;
    private final DataSource pool;
    private final Leases leases;
    private final BooleanSupplier closing;
    private final AttemptLog attempts;
    private final WindowStats stats;

    Recorder(Settings settings, RelayConfig config, DataSource pool, Leases leases, BooleanSupplier closing,
             WindowStats stats) {
        this.settings = settings;
        this.config = config;
        this.pool = pool;
        this.leases = leases;
        this.closing = closing;
        this.attempts = new AttemptLog(settings.dialect(), settings.tables().eventAttempt(), settings.tables().message());
        this.stats = stats;
    }

    /** Records {@code outcomes} at {@code now}; {@code started} (a nanoTime) began the cycle. */
    Cycle record(Outcomes.Sorted outcomes, Instant now, long started, int takenOver) {
        List<OutboxRecord> published = outcomes.published();
        List<Leases.Failure> failures = outcomes.failures();
        List<OutboxRecord> unknown = outcomes.unknown();
        String id = config.instanceId();
        Written written = Transactions.inTransaction(pool, "relay " + id + " recording claimed="
                + (published.size() + failures.size()) + ", published=" + published.size() + ", failed="
                + failures.size(), c -> {
            int ok = leases.published(c, published, id, now);
            int[] failed = leases.failed(c, failures, id, now);
            attempts.insert(c, attempts(failures, failed, id), now);
            if (!unknown.isEmpty()) {
                int released = leases.release(c, unknown, id, now);
                if (!closing.getAsBoolean()) {
                    log.debug("Relay {}: gave back {} leases of events held back behind an unpublished earlier event",
                            id, released);
                } else {
                    log.info("Relay {}: closing; gave back {} leases whose outcome was not known yet", id, released);
                }
            }
            return new Written(ok, failed);
        });
        Cycle cycle = notify(published, failures, written, now, takenOver, unknown.size());
        Failures.safely(log, config.owner(), () -> config.listener().batch(id, cycle.claimed(), cycle.published(),
                cycle.failed(), cycle.dead(), Duration.ofNanos(System.nanoTime() - started)));
        return cycle;
    }

    /** The attempt rows of the failures this relay recorded ({@code written[i] != 0}). */
    private static List<AttemptLog.Attempt> attempts(List<Leases.Failure> failures, int[] written, String id) {
        List<AttemptLog.Attempt> out = new ArrayList<>();
        for (int i = 0; i < failures.size(); i++) {
            Leases.Failure f = failures.get(i);
            if (written[i] != 0) {
                OutboxRecord e = f.event();
                out.add(new AttemptLog.Attempt(AttemptLog.OUTBOX, e.id(), e.eventNo(), e.retryCount() + f.addRetries(),
                        f.dead() ? AttemptLog.DEAD : AttemptLog.FAILED, f.reason(), id, f.dead() ? null : f.nextRetry()));
            }
        }
        return out;
    }

    /** What the recording transaction wrote: published rows, and per failure 1, or 0 where it was fenced. */
    private record Written(int published, int[] failed) {
    }

    /** Tells the listener of every recorded outcome. */
    private Cycle notify(List<OutboxRecord> published, List<Leases.Failure> failures, Written written, Instant now,
                         int takenOver, int unknown) {
        int fenced = published.size() - written.published();
        int failed = 0;
        int dead = 0;
        WindowStats.Tally tally = stats.tally();
        for (int i = 0; i < failures.size(); i++) {
            Leases.Failure f = failures.get(i);
            if (written.failed()[i] == 0) {
                fenced++;
                continue;
            }
            if (f.dead()) {
                dead++;
                tally.dead();
                OutboxRecord e = f.event();
                try (LogContext ignored = LogContext.open(e.eventNo(), LogContext.aggregate(e.aggregateType(),
                        e.aggregateId()), e.traceId(), null)) {
                    log.warn("{}: event {} ({}, channel {}) is DEAD after {} failed attempt(s): {}", config.owner(),
                            e.eventNo(), e.eventType(), e.channel(), e.retryCount() + 1, f.reason());
                }
                Failures.safely(log, config.owner(), () -> config.listener().dead(f.event(), f.reason()));
            } else {
                failed++;
                tally.failed();
                Failures.safely(log, config.owner(), () -> config.listener().failed(f.event(), f.reason(), f.nextRetry()));
            }
        }
        for (int i = 0; i < published.size(); i++) {
            OutboxRecord r = published.get(i);
            Duration latency = Duration.between(r.createTime(), now);
            if (i < written.published()) { // fenced ones (rare) are not counted; which they were is not known
                tally.succeeded(latency.toMillis());
            }
            Failures.safely(log, config.owner(), () -> config.listener().published(r, latency));
        }
        tally.add();
        if (fenced > 0) {
            int n = fenced;
            Failures.safely(log, config.owner(), () -> config.listener().fenced(config.instanceId(), n));
            log.warn("Relay {}: {} outcomes not recorded: their leases expired and another relay took them over",
                    config.instanceId(), fenced);
        }
        return new Cycle(published.size() + failures.size() + unknown, written.published(), failed, dead, fenced,
                takenOver);
    }

    /** Best effort: returns leases at once instead of leaving them to expire; they expire anyway if this fails. */
    void giveBack(List<OutboxRecord> leased, String why) {
        String id = config.instanceId();
        try {
            int released = Transactions.inTransaction(pool, "relay " + id + " giving back " + leased.size() + " leases",
                    c -> leases.release(c, leased, id, settings.now()));
            log.info("Relay {}: {}; gave back {} of {} leases", id, why, released, leased.size());
        } catch (RuntimeException e) {
            log.warn("Relay {}: {}; could not give back {} leases, they expire after {}: {}", id, why,
                    leased.size(), config.lease(), Failures.describe(e));
        }
    }
}
