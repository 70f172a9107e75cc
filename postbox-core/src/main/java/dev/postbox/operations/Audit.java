package dev.postbox.operations;

import dev.postbox.common.ValidationException;
import dev.postbox.compensation.CompensationStatus;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.TableNames;
import dev.postbox.message.MessageStatus;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.query.OutboxSearch;
import dev.postbox.query.Page;
import dev.postbox.query.PageRequest;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The audit log as the console reads it, newest first and keyset-paged. One condition drives the read through its
 * index: the event (its {@code biz_admin_log} rows by event_no, then their actions by id), the actor
 * ({@code (actor, id)}), the time range ({@code create_time}), else the primary key; the other conditions are
 * checked on the rows read, at most {@link OutboxSearch#MAX_EXAMINED} of them per page (a page may then hold fewer
 * entries than asked, with a cursor to go on). An action's changes come by {@code (action_id, id)}.
 */
final class Audit {

    private static final int CHUNK = 500;
    static final String ACTION_COLUMNS = "id, action, target, filter_text, dry_run_count, cap, changed_count,"
            + " action_status, actor, reason, error, create_time, finish_time";
    static final String CHANGE_COLUMNS = "id, action_id, table_name, event_no, action, from_status, to_status, actor,"
            + " reason, create_time";

    /** What drives a read of the audit log. */
    enum Driver { EVENT_NO, ACTOR, TIME, ALL }

    private final Settings s;
    private final TableNames t;
    final Map<Driver, String[]> sql = new HashMap<>();
    final String changesSql;
    final String changesAfterSql;

    Audit(Settings settings) {
        this.s = settings;
        this.t = settings.tables();
        String actions = t.adminAction();
        sql.put(Driver.EVENT_NO, new String[] {
                "SELECT id, action_id FROM " + t.adminLog() + " WHERE event_no = ? ORDER BY event_no DESC, id DESC LIMIT ?",
                "SELECT id, action_id FROM " + t.adminLog() + " WHERE event_no = ? AND id < ? ORDER BY event_no DESC, id DESC"
                        + " LIMIT ?"});
        sql.put(Driver.ACTOR, new String[] {
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " WHERE actor = ? ORDER BY actor DESC, id DESC LIMIT ?",
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " WHERE actor = ? AND id < ? ORDER BY actor DESC, id DESC"
                        + " LIMIT ?"});
        sql.put(Driver.TIME, new String[] {
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " WHERE create_time >= ? AND create_time < ?"
                        + " ORDER BY create_time DESC, id DESC LIMIT ?",
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " WHERE create_time >= ? AND create_time <= ?"
                        + " AND (create_time < ? OR (create_time = ? AND id < ?)) ORDER BY create_time DESC, id DESC LIMIT ?"});
        sql.put(Driver.ALL, new String[] {
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " ORDER BY id DESC LIMIT ?",
                "SELECT " + ACTION_COLUMNS + " FROM " + actions + " WHERE id < ? ORDER BY id DESC LIMIT ?"});
        this.changesSql = "SELECT " + CHANGE_COLUMNS + " FROM " + t.adminLog() + " WHERE action_id = ?"
                + " ORDER BY action_id, id LIMIT ?";
        this.changesAfterSql = "SELECT " + CHANGE_COLUMNS + " FROM " + t.adminLog() + " WHERE action_id = ? AND id > ?"
                + " ORDER BY action_id, id LIMIT ?";
    }

    static Driver driver(AuditQuery q) {
        if (q.eventNo() != null) {
            return Driver.EVENT_NO;
        }
        if (q.actor() != null) {
            return Driver.ACTOR;
        }
        return q.from() != null || q.before() != null ? Driver.TIME : Driver.ALL;
    }

    Page<AuditEntry> audit(AuditQuery q, PageRequest page) {
        Check.optional(s.dialect(), "actor", q.actor(), 128);
        Check.optional(s.dialect(), "action", q.action(), 32);
        Check.optional(s.dialect(), "eventNo", q.eventNo(), 64);
        if (q.from() != null && q.before() != null && !q.from().isBefore(q.before())) {
            throw new ValidationException("from", "must be before 'before' (from " + q.from() + ", before " + q.before() + ")");
        }
        Driver driver = driver(q);
        long[] cursor = cursor(driver, page.after());
        return Sql.read(s, "audit log", c -> {
            List<AuditEntry> found = new ArrayList<>();
            int examined = 0;
            long[] at = cursor;
            boolean exhausted = false;
            while (found.size() < page.limit() && examined < OutboxSearch.MAX_EXAMINED) {
                int n = Math.min(CHUNK, OutboxSearch.MAX_EXAMINED - examined);
                Chunk chunk = chunk(c, driver, q, at, n);
                int i = 0;
                for (; i < chunk.entries().size() && found.size() < page.limit(); i++) {
                    examined++;
                    at = chunk.cursors().get(i);
                    AuditEntry e = chunk.entries().get(i);
                    if (e != null && matches(q, e)) {
                        found.add(e);
                    }
                }
                if (chunk.entries().size() < n && i == chunk.entries().size()) {
                    exhausted = true;
                    break;
                }
            }
            return new Page<>(found, exhausted ? null : format(driver, at));
        });
    }

    /** Rows of the driver after {@code at}: the entries (null for a log row of no action) and each one's cursor. */
    private record Chunk(List<AuditEntry> entries, List<long[]> cursors) {
    }

    private Chunk chunk(Connection c, Driver driver, AuditQuery q, long[] at, int n) throws SQLException {
        String[] statements = sql.get(driver);
        List<Object> params = new ArrayList<>();
        switch (driver) {
            case EVENT_NO -> {
                params.add(q.eventNo());
                if (at != null) {
                    params.add(at[0]);
                }
                params.add(n);
                List<long[]> rows = Sql.list(c, s, statements[at == null ? 0 : 1], params,
                        rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.wasNull() ? 1 : 0});
                Set<Long> ids = new LinkedHashSet<>();
                rows.stream().filter(r -> r[2] == 0).forEach(r -> ids.add(r[1]));
                Map<Long, AuditEntry> byId = new HashMap<>();
                if (!ids.isEmpty()) {
                    Sql.list(c, s, "SELECT " + ACTION_COLUMNS + " FROM " + t.adminAction() + " WHERE id IN ("
                            + Sql.marks(ids.size()) + ")", new ArrayList<>(ids), rs -> byId.put(rs.getLong("id"), entry(rs)));
                }
                Set<Long> seen = new java.util.HashSet<>();
                List<AuditEntry> entries = new ArrayList<>();
                List<long[]> cursors = new ArrayList<>();
                for (long[] r : rows) {
                    entries.add(r[2] == 0 && seen.add(r[1]) ? byId.get(r[1]) : null);
                    cursors.add(new long[] {r[0]});
                }
                return new Chunk(entries, cursors);
            }
            case ACTOR -> {
                params.add(q.actor());
                if (at != null) {
                    params.add(at[0]);
                }
            }
            case TIME -> {
                params.add(q.from() == null ? Instant.EPOCH : q.from());
                if (at == null) {
                    params.add(q.before() == null ? s.dialect().latestTime() : q.before());
                } else {
                    Instant t = Instant.ofEpochMilli(at[0]);
                    params.add(t);
                    params.add(t);
                    params.add(t);
                    params.add(at[1]);
                }
            }
            case ALL -> {
                if (at != null) {
                    params.add(at[0]);
                }
            }
        }
        params.add(n);
        List<AuditEntry> entries = Sql.list(c, s, statements[at == null ? 0 : 1], params, this::entry);
        List<long[]> cursors = entries.stream().map(e -> driver == Driver.TIME
                ? new long[] {e.createTime().toEpochMilli(), e.id()} : new long[] {e.id()}).toList();
        return new Chunk(entries, cursors);
    }

    private static boolean matches(AuditQuery q, AuditEntry e) {
        return (q.actor() == null || q.actor().equals(e.actor()))
                && (q.action() == null || q.action().equalsIgnoreCase(e.action()))
                && (q.from() == null || !e.createTime().isBefore(q.from()))
                && (q.before() == null || e.createTime().isBefore(q.before()));
    }

    Page<AuditChange> changes(long actionId, PageRequest page) {
        long after;
        try {
            after = page.after() == null ? 0 : Long.parseLong(page.after());
        } catch (NumberFormatException e) {
            throw new ValidationException("after", "is not a cursor of this action's changes");
        }
        return Sql.read(s, "changes of audit entry " + actionId, c -> {
            List<Object> params = new ArrayList<>(List.of(actionId));
            if (after > 0) {
                params.add(after);
            }
            params.add(page.limit() + 1);
            List<AuditChange> rows = Sql.list(c, s, after > 0 ? changesAfterSql : changesSql, params, this::change);
            if (rows.size() <= page.limit()) {
                return new Page<>(rows, null);
            }
            List<AuditChange> items = rows.subList(0, page.limit());
            return new Page<>(items, Long.toString(items.get(items.size() - 1).id()));
        });
    }

    /** The changes of action {@code actionId}, at most {@code limit}, in the transaction of {@code c}. */
    List<AuditChange> changes(Connection c, long actionId, int limit) throws SQLException {
        return Sql.list(c, s, changesSql, List.of(actionId, limit), this::change);
    }

    AuditEntry entry(ResultSet rs) throws SQLException {
        long dry = rs.getLong("dry_run_count");
        Long dryRun = rs.wasNull() ? null : dry;
        int capValue = rs.getInt("cap");
        Integer cap = rs.wasNull() ? null : capValue;
        return new AuditEntry(rs.getLong("id"), rs.getString("action"), rs.getString("target"), rs.getString("filter_text"),
                dryRun, cap, rs.getInt("changed_count"), rs.getString("action_status"), rs.getString("actor"),
                rs.getString("reason"), rs.getString("error"), s.dialect().readTime(rs, "create_time"),
                s.dialect().readTime(rs, "finish_time"));
    }

    private AuditChange change(ResultSet rs) throws SQLException {
        String table = rs.getString("table_name");
        long action = rs.getLong("action_id");
        Long actionId = rs.wasNull() ? null : action;
        int from = rs.getInt("from_status");
        int toCode = rs.getInt("to_status");
        String to = rs.wasNull() ? null : status(table, toCode);
        return new AuditChange(rs.getLong("id"), actionId, table, rs.getString("event_no"), rs.getString("action"),
                status(table, from), to, rs.getString("actor"), rs.getString("reason"),
                s.dialect().readTime(rs, "create_time"));
    }

    /** A status code of {@code table} by its name in that table (a compensation's by its position). */
    private String status(String table, int code) {
        try {
            if (table.equals(t.message())) {
                return MessageStatus.of(code).name();
            }
            if (table.equals(t.compensationLog())) {
                return CompensationStatus.values()[code].name();
            }
            return OutboxStatus.of(code).name();
        } catch (RuntimeException e) {
            return Integer.toString(code);
        }
    }

    private static long[] cursor(Driver driver, String text) {
        if (text == null) {
            return null;
        }
        try {
            if (driver == Driver.TIME) {
                int colon = text.indexOf(':');
                return new long[] {Long.parseLong(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1))};
            }
            return new long[] {Long.parseLong(text)};
        } catch (RuntimeException e) {
            throw new ValidationException("after", "is not a cursor of this audit query (was \""
                    + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "\")");
        }
    }

    private static String format(Driver driver, long[] at) {
        if (at == null) {
            return null;
        }
        return driver == Driver.TIME ? at[0] + ":" + at[1] : Long.toString(at[0]);
    }
}
