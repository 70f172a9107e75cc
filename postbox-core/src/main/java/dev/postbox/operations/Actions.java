package dev.postbox.operations;

import dev.postbox.compensation.CompensationStatus;
import dev.postbox.internal.AuditTrail;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.ReadCommitted;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.PageRequest;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A person's change of one event, one aggregate's sequence or one compensation: in one transaction the action's
 * audit row, a locking read of what it applies to, guarded UPDATEs (an event that moved on meanwhile is left
 * alone) and one admin-log row per change ({@link AuditTrail}, which {@code postbox.admin()} writes too).
 */
final class Actions {

    /** Most events one cancel of a sequence changes; what is left needs another call. */
    static final int MAX_SEQUENCE = BulkRequest.MAX_CAP;

    /** What a change does, per table. */
    enum Kind {
        RETRY("retry", EventTable.RETRYABLE, OutboxStatus.PENDING.code()),
        CANCEL("cancel", EventTable.CANCELLABLE, OutboxStatus.CANCELLED.code());

        final String verb;
        final Set<Integer> from;
        final int to;

        Kind(String verb, Set<Integer> from, int to) {
            this.verb = verb;
            this.from = from;
            this.to = to;
        }

        AuditTrail.Change on(EventTable t) {
            return new AuditTrail.Change(t.table(), t.statusColumn(), name(), this == RETRY ? t.retrySet() : t.cancelSet(), to);
        }
    }

    private final Settings s;
    private final Details details;
    private final Audit audit;
    private final AuditTrail trail;
    private final DataSource readCommitted;
    private final String compensationLockSql;
    private final String compensationRetrySql;
    final String sequenceLockSql;

    Actions(Settings settings, Details details, Audit audit, AuditTrail trail) {
        this.s = settings;
        this.details = details;
        this.audit = audit;
        this.trail = trail;
        this.readCommitted = ReadCommitted.of(settings.dialect(), settings.dataSource());
        String comp = settings.tables().compensationLog();
        this.compensationLockSql = "SELECT id, biz_key, compensate_status, attempts FROM " + comp
                + " WHERE biz_type = ? AND biz_key = ? AND action_type = ? FOR UPDATE";
        this.compensationRetrySql = "UPDATE " + comp + settings.dialect().forceIndex("PRIMARY")
                + " SET attempts = 0, update_time = ? WHERE id = ? AND compensate_status = '"
                + CompensationStatus.FAILED.name() + "'";
        EventTable outbox = details.table(EventKind.OUTBOX);
        this.sequenceLockSql = "SELECT id, event_no, publish_status FROM " + outbox.table()
                + settings.dialect().forceIndex("idx_aggregate_status") + " WHERE aggregate_type = ? AND aggregate_id = ?"
                + " AND publish_status IN (" + Sql.codes(EventTable.CANCELLABLE) + ") AND deleted = 0"
                + " ORDER BY aggregate_type, aggregate_id, id LIMIT " + MAX_SEQUENCE + " FOR UPDATE";
    }

    /** The SELECT that locks the event {@code eventNo} of {@code t} in a status {@code k} applies to. */
    static String lockSql(EventTable t, Kind k) {
        return "SELECT id, event_no, " + t.statusColumn() + " FROM " + t.table() + " WHERE event_no = ? AND deleted = 0 AND "
                + t.statusColumn() + " IN (" + Sql.codes(k.from) + ") FOR UPDATE";
    }

    ActionResult one(Kind k, EventKind kind, String eventNo, String reason, Operator who) {
        EventTable t = details.table(kind);
        AuditTrail.Action a = new AuditTrail.Action(k.name(), kind.name(), eventNo, null, null, who.name(), reason);
        return run(a, (c, actionId, now) -> {
            List<AuditTrail.Row> locked = trail.lock(c, lockSql(t, k), List.of(eventNo));
            List<AuditTrail.Row> changed = trail.apply(c, k.on(t), locked, actionId, who.name(), reason, now);
            if (!changed.isEmpty()) {
                AuditTrail.Row r = changed.get(0);
                return new Outcome(1, eventNo + ": " + t.statusName(r.status()) + " -> " + t.statusName(k.to)
                        + (k == Kind.RETRY ? " with a fresh set of retries"
                        : kind == EventKind.OUTBOX ? "; the events of its aggregate behind it are no longer held back by it" : ""));
            }
            Integer status = Sql.first(c, s, "SELECT " + t.statusColumn() + " FROM " + t.table() + " WHERE event_no = ?",
                    List.of(eventNo), rs -> rs.getInt(1));
            String why = status == null ? "no " + kind.name().toLowerCase(java.util.Locale.ROOT) + " event has event_no "
                    + eventNo : eventNo + " is " + t.statusName(status) + "; " + k.verb + " applies to "
                    + String.join(" and ", k.from.stream().sorted().map(t::statusName).toList()) + " events";
            return new Outcome(0, "nothing changed: " + why);
        });
    }

    ActionResult cancelSequence(String type, String id, String reason, Operator who) {
        EventTable t = details.table(EventKind.OUTBOX);
        AuditTrail.Action a = new AuditTrail.Action("CANCEL_SEQUENCE", "AGGREGATE", type + "/" + id, null, MAX_SEQUENCE,
                who.name(), reason);
        return run(a, (c, actionId, now) -> {
            List<AuditTrail.Row> locked = trail.lock(c, sequenceLockSql, List.of(type, id));
            int n = trail.apply(c, Kind.CANCEL.on(t), locked, actionId, who.name(), reason, now).size();
            String more = locked.size() >= MAX_SEQUENCE ? "; more may remain: cancel the sequence again" : "";
            return new Outcome(n, n == 0 ? "nothing changed: " + type + "/" + id + " has no PENDING, FAILED or DEAD event"
                    : "cancelled " + n + " events of " + type + "/" + id + " (events being published now finish as they"
                    + " do)" + more);
        });
    }

    ActionResult retryCompensation(String bizType, String bizKey, String actionType, String reason, Operator who) {
        String key = bizType + "/" + bizKey + "/" + actionType;
        AuditTrail.Action a = new AuditTrail.Action("RETRY_COMPENSATION", "COMPENSATION", key, null, null, who.name(), reason);
        return run(a, (c, actionId, now) -> {
            record Comp(long id, String status) {
            }
            Comp comp = Sql.first(c, s, compensationLockSql, List.of(bizType, bizKey, actionType),
                    rs -> new Comp(rs.getLong("id"), rs.getString("compensate_status")));
            if (comp == null) {
                return new Outcome(0, "nothing changed: no compensation " + key);
            }
            if (!CompensationStatus.FAILED.name().equals(comp.status())) {
                return new Outcome(0, "nothing changed: compensation " + key + " is " + comp.status()
                        + "; only a FAILED one runs again");
            }
            try (PreparedStatement ps = c.prepareStatement(compensationRetrySql)) {
                s.dialect().bindTime(ps, 1, now);
                ps.setLong(2, comp.id());
                if (ps.executeUpdate() != 1) {
                    return new Outcome(0, "nothing changed: compensation " + key + " changed meanwhile");
                }
            }
            int failed = CompensationStatus.FAILED.ordinal();
            trail.log(c, s.tables().compensationLog(), List.of(new AuditTrail.Row(comp.id(), bizKey, failed)), "RETRY",
                    failed, actionId, who.name(), reason, now);
            return new Outcome(1, "compensation " + key + " may run again: its attempts start over, and the"
                    + " compensation job runs it when its scan finds " + bizKey + " again");
        });
    }

    /** What an action's body did. */
    record Outcome(int changed, String message) {
    }

    @FunctionalInterface
    interface Body {
        Outcome run(Connection c, long actionId, Instant now) throws SQLException;
    }

    /**
     * {@code body} in one transaction with its action row (RUNNING, then DONE) and its changes read back; at READ
     * COMMITTED ({@link ReadCommitted}), so that its locking reads by event_no, aggregate or compensation key lock
     * those rows and no index gap.
     */
    private ActionResult run(AuditTrail.Action a, Body body) {
        Instant now = s.now();
        return Transactions.inTransaction(readCommitted, a.action().toLowerCase(java.util.Locale.ROOT) + " " + a.filter()
                + " by " + a.actor(), c -> {
            long actionId = trail.open(c, a, "RUNNING", now);
            Outcome o = body.run(c, actionId, now);
            trail.finish(c, actionId, "DONE", o.changed(), null, now);
            List<AuditChange> changes = new ArrayList<>(audit.changes(c, actionId, PageRequest.first(1000).limit()));
            return new ActionResult(o.changed(), actionId, changes, o.message());
        });
    }
}
