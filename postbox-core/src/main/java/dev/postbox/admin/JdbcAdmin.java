package dev.postbox.admin;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.AuditTrail;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.ReadCommitted;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import javax.sql.DataSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * {@link Admin} on plain JDBC: lock the matching rows, change each with a guarded UPDATE, log it; each call is
 * one action of the audit log ({@link AuditTrail}), the same log {@code postbox.operations()} writes and reads.
 */
final class JdbcAdmin implements Admin {

    /** What retrying and cancelling do to an outbox event ({@link OutboxRows}); {@code postbox.operations()} does the same. */
    private enum Action {
        RETRY(EnumSet.of(OutboxStatus.FAILED, OutboxStatus.DEAD), OutboxStatus.PENDING, OutboxRows.RETRY_SET),
        CANCEL(EnumSet.of(OutboxStatus.PENDING, OutboxStatus.FAILED, OutboxStatus.DEAD), OutboxStatus.CANCELLED,
                OutboxRows.CANCEL_SET);

        final Set<OutboxStatus> from;
        final OutboxStatus to;
        final String set;

        Action(Set<OutboxStatus> from, OutboxStatus to, String set) {
            this.from = from;
            this.to = to;
            this.set = set;
        }
    }

    private final Settings s;
    private final AuditTrail trail;
    /** The application's data source at READ COMMITTED where the database locks index gaps ({@link ReadCommitted}). */
    private final DataSource readCommitted;

    JdbcAdmin(Settings settings) {
        this.s = settings;
        this.trail = new AuditTrail(settings);
        this.readCommitted = ReadCommitted.of(settings.dialect(), settings.dataSource());
    }

    @Override
    public boolean retry(String eventNo, String actor, String reason) {
        return one(Action.RETRY, eventNo, actor, reason);
    }

    @Override
    public boolean cancel(String eventNo, String actor, String reason) {
        return one(Action.CANCEL, eventNo, actor, reason);
    }

    @Override
    public int retryWhere(AdminFilter filter, String actor, String reason) {
        return where(Action.RETRY, filter, actor, reason);
    }

    @Override
    public int cancelWhere(AdminFilter filter, String actor, String reason) {
        return where(Action.CANCEL, filter, actor, reason);
    }

    private boolean one(Action action, String eventNo, String actor, String reason) {
        Check.required(s.dialect(), "eventNo", eventNo, 64);
        checkWho(actor, reason);
        String sql = """
                SELECT id, event_no, publish_status FROM %s
                WHERE event_no = ? AND deleted = 0 AND publish_status IN (%s) FOR UPDATE"""
                .formatted(s.tables().outbox(), codes(action.from));
        return apply(action, new AuditTrail.Action(action.name(), "OUTBOX", eventNo, null, null, actor, reason), sql,
                List.of(eventNo)) == 1;
    }

    private int where(Action action, AdminFilter f, String actor, String reason) {
        if (f == null) {
            throw new ValidationException("filter", "is required");
        }
        checkWho(actor, reason);
        Check.optional(s.dialect(), "filter.topic", f.topic(), 128);
        Check.optional(s.dialect(), "filter.eventType", f.eventType(), 64);
        Check.optional(s.dialect(), "filter.aggregateType", f.aggregateType(), 64);
        Set<OutboxStatus> statuses = f.statuses().isEmpty() ? action.from : f.statuses();
        for (OutboxStatus st : statuses) {
            if (!action.from.contains(st)) {
                throw new ValidationException("filter.statuses", action + " applies only to " + action.from + " (was " + st + ")");
            }
        }
        StringBuilder sql = new StringBuilder("""
                SELECT id, event_no, publish_status FROM %s
                WHERE deleted = 0 AND publish_status IN (%s)""".formatted(s.tables().outbox(), codes(statuses)));
        List<Object> params = new ArrayList<>();
        StringJoiner described = new StringJoiner(" ");
        described.add("status:" + statuses.stream().sorted().map(st -> st.name().toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.joining(",")));
        condition(sql, params, described, "topic", f.topic());
        condition(sql, params, described, "event_type", f.eventType());
        condition(sql, params, described, "aggregate_type", f.aggregateType());
        if (f.createdBefore() != null) {
            sql.append(" AND create_time < ?");
            params.add(f.createdBefore());
            described.add("before:" + f.createdBefore());
        }
        sql.append(" ORDER BY id LIMIT ").append(f.limit()).append(" FOR UPDATE");
        return apply(action, new AuditTrail.Action("BULK_" + action.name(), "OUTBOX", described.toString(), null,
                f.limit(), actor, reason), sql.toString(), params);
    }

    private static void condition(StringBuilder sql, List<Object> params, StringJoiner described, String column,
                                  String value) {
        if (value != null) {
            sql.append(" AND ").append(column).append(" = ?");
            params.add(value);
            described.add(column + "=" + value);
        }
    }

    /**
     * Locks, changes and logs in one transaction (READ COMMITTED: it locks these rows and no index gap), with the
     * action's row where the schema has the action table.
     */
    private int apply(Action action, AuditTrail.Action audited, String selectSql, List<Object> params) {
        Instant now = s.now();
        boolean actions = trail.actionsExist();
        return Transactions.inTransaction(readCommitted, "admin " + action + " by " + audited.actor(), c -> {
            Long actionId = actions ? trail.open(c, audited, "RUNNING", now) : null;
            List<AuditTrail.Row> locked = trail.lock(c, selectSql, params);
            AuditTrail.Change change = new AuditTrail.Change(s.tables().outbox(), "publish_status", action.name(),
                    action.set, action.to.code());
            int changed = trail.apply(c, change, locked, actionId, audited.actor(), audited.reason(), now).size();
            if (actionId != null) {
                trail.finish(c, actionId, "DONE", changed, null, now);
            }
            return changed;
        });
    }

    private void checkWho(String actor, String reason) {
        Check.required(s.dialect(), "actor", actor, 128);
        Check.required(s.dialect(), "reason", reason, 500);
    }

    private static String codes(Set<OutboxStatus> statuses) {
        return statuses.stream().map(st -> Integer.toString(st.code())).sorted().collect(Collectors.joining(", "));
    }
}
