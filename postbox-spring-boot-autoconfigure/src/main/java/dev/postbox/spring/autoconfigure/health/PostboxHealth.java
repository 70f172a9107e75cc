package dev.postbox.spring.autoconfigure.health;

import dev.postbox.common.ValidationException;
import dev.postbox.query.Backlog;
import dev.postbox.query.Queries;
import dev.postbox.retention.Retention;
import dev.postbox.retention.RetentionReport;
import dev.postbox.retention.RetentionTable;
import dev.postbox.micrometer.RetentionRunway;
import dev.postbox.spring.autoconfigure.listener.PostboxListeners;
import dev.postbox.spring.autoconfigure.metrics.BacklogMonitor;
import dev.postbox.micrometer.Backlogs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The decision behind the {@code postbox} health component, shared by the Boot 3 and Boot 4 indicators: DOWN
 * when the oldest unfinished outbox event has waited longer than {@code maxOldestPendingAge} or more than
 * {@code maxDead} events are DEAD (outbox and message events together: each needs a person). The message events'
 * age is shown but does not count, because a FAILED one may rightly wait hours for its next retry. It takes the
 * metrics' backlog read when that is fresh, else reads now through the metrics' monitor (so that a slower read of
 * the monitor's, started earlier, cannot later pass for fresher); a database error propagates (the indicators
 * report it as DOWN with the error). The details' {@code retention} shows whether retention runs here and, when it
 * does, its instance, the lease holder, the last success and failure, the outbox's strategy and with partitions
 * their runway (from the retention's status, no query); a failing retention is shown
 * ({@code failing: true}) but never makes the component DOWN: old rows staying a while longer is no outage.
 * Thread-safe.
 */
final class PostboxHealth {

    /** UP or DOWN with the details to show. */
    record Result(boolean up, Map<String, Object> details) {
    }

    /**
     * The oldest backlog read the check reuses from the metrics' monitor; an older one is read again, so the health
     * never lags the database by a metrics refresh interval (10 s by default).
     */
    static final Duration MAX_AGE = Duration.ofSeconds(1);

    private final Queries queries;
    private final BacklogMonitor monitor;
    private final Duration maxOldestPendingAge;
    private final long maxDead;
    private final BooleanSupplier relayRunning;
    private final BooleanSupplier relayClockTrusted;
    private final Retention retention;
    private final PostboxListeners listeners;

    /**
     * @param queries             where the backlogs are read when there is no fresh read
     * @param monitor             the metrics' backlog reader, or null when metrics are off
     * @param maxOldestPendingAge positive ({@code postbox.health.max-oldest-pending-age})
     * @param maxDead             0 or more ({@code postbox.health.max-dead})
     * @param relayRunning        whether this application's relay runs, or null when it has none
     * @param relayClockTrusted   whether the relay's clock is within its bound of the database's (a relay beyond it
     *                            takes over no expired lease), or null when there is no relay. A relay whose thread
     *                            died, or whose clock is not trusted, makes the health DOWN.
     */
    PostboxHealth(Queries queries, BacklogMonitor monitor, Duration maxOldestPendingAge, long maxDead,
                  BooleanSupplier relayRunning, BooleanSupplier relayClockTrusted) {
        this(queries, monitor, maxOldestPendingAge, maxDead, relayRunning, relayClockTrusted, null);
    }

    /** @param retention this application's retention, or null when {@code postbox.retention.enabled} is false */
    PostboxHealth(Queries queries, BacklogMonitor monitor, Duration maxOldestPendingAge, long maxDead,
                  BooleanSupplier relayRunning, BooleanSupplier relayClockTrusted, Retention retention) {
        this(queries, monitor, maxOldestPendingAge, maxDead, relayRunning, relayClockTrusted, retention, null);
    }

    /**
     * @param listeners the {@code @PostboxListener} containers, or null when there are none: their state is in the
     *                  details ({@code listeners}), and a started consumer that stopped receiving makes the health DOWN
     */
    PostboxHealth(Queries queries, BacklogMonitor monitor, Duration maxOldestPendingAge, long maxDead,
                  BooleanSupplier relayRunning, BooleanSupplier relayClockTrusted, Retention retention,
                  PostboxListeners listeners) {
        this.listeners = listeners;
        this.retention = retention;
        this.relayClockTrusted = relayClockTrusted;
        this.queries = Objects.requireNonNull(queries, "queries");
        this.monitor = monitor;
        if (maxOldestPendingAge == null || maxOldestPendingAge.isNegative() || maxOldestPendingAge.isZero()) {
            throw new ValidationException("postbox.health.max-oldest-pending-age", "must be positive, was "
                    + maxOldestPendingAge);
        }
        if (maxDead < 0) {
            throw new ValidationException("postbox.health.max-dead", "must be 0 or more, was " + maxDead);
        }
        this.maxOldestPendingAge = maxOldestPendingAge;
        this.maxDead = maxDead;
        this.relayRunning = relayRunning;
    }

    /** Checks the backlog against the thresholds; throws what the database read threw. */
    Result check() {
        Backlogs both = monitor == null ? Backlogs.read(queries) : monitor.fresh(MAX_AGE).orElseGet(monitor::readNow);
        Backlog b = both.outbox();
        Backlog m = both.messages();
        Duration age = b.oldestUnfinishedAge().orElse(Duration.ZERO);
        List<String> problems = new ArrayList<>(2);
        if (age.compareTo(maxOldestPendingAge) > 0) {
            problems.add("the oldest unfinished event has waited " + age + ", longer than " + maxOldestPendingAge);
        }
        long dead = b.dead() + m.dead();
        if (dead > maxDead) {
            problems.add(dead + " DEAD event(s) (outbox " + b.dead() + ", message events " + m.dead() + "), more than "
                    + maxDead + ": retry or cancel them");
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("pending", b.pending());
        details.put("publishing", b.inProgress());
        details.put("failed", b.failed());
        details.put("dead", b.dead());
        details.put("oldestPendingAge", age.toString());
        Map<String, Object> messages = new LinkedHashMap<>();
        messages.put("pending", m.pending());
        messages.put("processing", m.inProgress());
        messages.put("failed", m.failed());
        messages.put("dead", m.dead());
        messages.put("oldestPendingAge", m.oldestUnfinishedAge().orElse(Duration.ZERO).toString());
        details.put("messages", messages);
        Map<String, Object> thresholds = new LinkedHashMap<>();
        thresholds.put("maxOldestPendingAge", maxOldestPendingAge.toString());
        thresholds.put("maxDead", maxDead);
        details.put("thresholds", thresholds);
        if (relayRunning != null) {
            boolean runs = relayRunning.getAsBoolean();
            details.put("relayRunning", runs);
            if (!runs && relayClockTrusted != null) {
                problems.add("the relay is not running (its thread stopped: see the log)");
            }
        }
        if (relayClockTrusted != null) {
            boolean trusted = relayClockTrusted.getAsBoolean();
            details.put("relayClockTrusted", trusted);
            if (!trusted) {
                problems.add("the relay's clock is too far from the database's: it takes over no expired lease");
            }
        }
        details.put("retention", retention());
        if (listeners != null) {
            details.put("listeners", listeners.details());
            List<String> stopped = listeners.notRunning();
            if (!stopped.isEmpty()) {
                problems.add("listener(s) not receiving: " + String.join(", ", stopped) + " (see the log)");
            }
        }
        if (!problems.isEmpty()) {
            details.put("reason", String.join("; ", problems));
        }
        return new Result(problems.isEmpty(), details);
    }

    /** The retention details; reading the lease holder may fail, which shows but does not fail the check. */
    private Map<String, Object> retention() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("enabled", retention != null);
        if (retention == null) {
            return r;
        }
        Retention.Status s = retention.status();
        r.put("instanceId", retention.instanceId());
        try {
            r.put("leaseHolder", retention.leaseHolder().map(h -> {
                Map<String, Object> holder = new LinkedHashMap<>();
                holder.put("instanceId", h.instanceId());
                holder.put("until", String.valueOf(h.until()));
                return (Object) holder;
            }).orElse(null));
        } catch (RuntimeException e) {
            r.put("leaseHolder", "unknown: " + e.getMessage());
        }
        r.put("lastSuccess", s.lastSuccess() == null ? null : s.lastSuccess().toString());
        r.put("lastRemoved", s.lastReport() == null ? null : s.lastReport().removed());
        r.put("totalRemoved", s.totalRemoved());
        r.put("lastFailure", s.lastFailure());
        r.put("lastFailureTime", s.lastFailureTime() == null ? null : s.lastFailureTime().toString());
        boolean failing = s.lastFailureTime() != null
                && (s.lastSuccess() == null || s.lastFailureTime().isAfter(s.lastSuccess()));
        r.put("failing", failing);
        dev.postbox.retention.RetentionPolicy.Strategy strategy = retention.policy().strategy(RetentionTable.OUTBOX);
        r.put("outboxStrategy", strategy.name().toLowerCase(java.util.Locale.ROOT));
        if (strategy == dev.postbox.retention.RetentionPolicy.Strategy.PARTITIONS) {
            java.time.Duration runway = RetentionRunway.at(s, retention.clock().instant());
            r.put("partitionRunway", runway == null ? null : runway.toString());
            RetentionReport.TableRun outbox = s.lastReport() == null ? null : s.lastReport().table(RetentionTable.OUTBOX);
            r.put("lastPartitionsDropped", outbox == null ? null : outbox.partitions());
        }
        return r;
    }
}
