package dev.postbox.admin;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxStatus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** {@link Admin} on plain JDBC: lock the matching rows, change each with a guarded UPDATE, log it. */
final class JdbcAdmin implements Admin {

    private enum Action {
        RETRY(EnumSet.of(OutboxStatus.FAILED, OutboxStatus.DEAD),
                "publish_status = %d, retry_count = 0, next_retry_time = NULL, locked_by = NULL, lock_until = NULL"
                        .formatted(OutboxStatus.PENDING.code())),
        CANCEL(EnumSet.of(OutboxStatus.PENDING, OutboxStatus.FAILED, OutboxStatus.DEAD),
                "publish_status = %d, next_retry_time = NULL, locked_by = NULL, lock_until = NULL"
                        .formatted(OutboxStatus.CANCELLED.code()));

        final Set<OutboxStatus> from;
        final String set;

        Action(Set<OutboxStatus> from, String set) {
            this.from = from;
            this.set = set;
        }
    }

    private record Target(long id, String eventNo, int status) {
    }

    private final Settings s;

    JdbcAdmin(Settings settings) {
        this.s = settings;
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
        return apply(action, sql, List.of(eventNo), actor, reason) == 1;
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
        condition(sql, params, "topic", f.topic());
        condition(sql, params, "event_type", f.eventType());
        condition(sql, params, "aggregate_type", f.aggregateType());
        if (f.createdBefore() != null) {
            sql.append(" AND create_time < ?");
            params.add(f.createdBefore());
        }
        sql.append(" ORDER BY id LIMIT ").append(f.limit()).append(" FOR UPDATE");
        return apply(action, sql.toString(), params, actor, reason);
    }

    private static void condition(StringBuilder sql, List<Object> params, String column, String value) {
        if (value != null) {
            sql.append(" AND ").append(column).append(" = ?");
            params.add(value);
        }
    }

    private int apply(Action action, String selectSql, List<Object> params, String actor, String reason) {
        Instant now = s.now();
        try (Connection c = s.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                List<Target> targets = lock(c, selectSql, params);
                int changed = 0;
                try (PreparedStatement update = c.prepareStatement(updateSql(action));
                     PreparedStatement logRow = c.prepareStatement(logSql())) {
                    for (Target t : targets) {
                        s.dialect().bindTime(update, 1, now);
                        update.setLong(2, t.id());
                        update.setInt(3, t.status());
                        if (update.executeUpdate() != 1) {
                            continue;
                        }
                        changed++;
                        logRow.setString(1, s.tables().outbox());
                        logRow.setString(2, t.eventNo());
                        logRow.setString(3, action.name());
                        logRow.setInt(4, t.status());
                        logRow.setString(5, actor);
                        logRow.setString(6, reason);
                        s.dialect().bindTime(logRow, 7, now);
                        logRow.addBatch();
                    }
                    if (changed > 0) {
                        logRow.executeBatch();
                    }
                }
                c.commit();
                return changed;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("admin " + action + " by " + actor, e);
        }
    }

    /** Changes one locked row, guarded by the status it was locked in. */
    private String updateSql(Action action) {
        return """
                UPDATE %s SET %s, version = version + 1, update_time = ?
                WHERE id = ? AND publish_status = ?""".formatted(s.tables().outbox(), action.set);
    }

    private String logSql() {
        return """
                INSERT INTO %s (table_name, event_no, action, from_status, actor, reason, create_time)
                VALUES (?, ?, ?, ?, ?, ?, ?)""".formatted(s.tables().adminLog());
    }

    private List<Target> lock(Connection c, String sql, List<Object> params) throws SQLException {
        List<Target> targets = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
                Object p = params.get(i);
                if (p instanceof Instant t) {
                    s.dialect().bindTime(ps, i + 1, t);
                } else {
                    ps.setString(i + 1, (String) p);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    targets.add(new Target(rs.getLong(1), rs.getString(2), rs.getInt(3)));
                }
            }
        }
        return targets;
    }

    private void checkWho(String actor, String reason) {
        Check.required(s.dialect(), "actor", actor, 128);
        Check.required(s.dialect(), "reason", reason, 500);
    }

    private static String codes(Set<OutboxStatus> statuses) {
        return statuses.stream().map(st -> Integer.toString(st.code())).sorted().collect(Collectors.joining(", "));
    }
}
