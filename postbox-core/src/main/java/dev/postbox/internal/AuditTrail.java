package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a person's change of events writes, shared by {@code postbox.admin()} and {@code postbox.operations()}:
 * one {@code biz_admin_action} row per action (who, why, on what, how many) and, in the same transaction as each
 * change, one {@code biz_admin_log} row per event changed, pointing at the action and carrying the status before
 * and after. An event is changed by a guarded UPDATE of a row the transaction locked ({@code FOR UPDATE}) in the
 * status it was locked in, so an event that moved on meanwhile (the relay published it) is left alone. The status
 * codes are the callers' (from their status enums); this class knows no event table. Thread-safe.
 * <p>
 * The callers run each change in a READ COMMITTED transaction of its own ({@code ReadCommitted}) and
 * the guarded UPDATE finds its row by primary key ({@code FORCE INDEX (PRIMARY)} on MySQL), so that an action locks
 * the rows it changes and no index gap: a person's action never makes the application's writes or a relay's
 * outcomes of other events wait.
 */
public final class AuditTrail {

    /** An action as the audit log records it; {@code dryRunCount} and {@code cap} are for bulk actions, else null. */
    public record Action(String action, String target, String filter, Long dryRunCount, Integer cap, String actor,
                         String reason) {
    }

    /** A row an action may change, as locked: its id, event_no and status code. */
    public record Row(long id, String eventNo, int status) {
    }

    /**
     * How one kind of change moves a row on.
     *
     * @param table        the event table
     * @param statusColumn its status column
     * @param logAction    what {@code biz_admin_log.action} says (RETRY, CANCEL)
     * @param set          the SET list that gives the row its new status (and resets what goes with it)
     * @param toStatus     the status code after the change
     */
    public record Change(String table, String statusColumn, String logAction, String set, int toStatus) {
    }

    private final Settings s;
    private final String openSql;
    private final String finishSql;
    private final String logSql;
    private final String legacyLogSql;
    private volatile boolean actionsExist;

    public AuditTrail(Settings settings) {
        this.s = settings;
        this.openSql = """
                INSERT INTO %s (action, target, filter_text, dry_run_count, cap, changed_count, action_status, actor,
                 reason, create_time) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)""".formatted(settings.tables().adminAction());
        this.finishSql = """
                UPDATE %s SET action_status = ?, changed_count = ?, error = ?, finish_time = ?
                 WHERE id = ?""".formatted(settings.tables().adminAction());
        this.logSql = """
                INSERT INTO %s (table_name, event_no, action, from_status, to_status, actor, reason, create_time,
                 action_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""".formatted(settings.tables().adminLog());
        this.legacyLogSql = """
                INSERT INTO %s (table_name, event_no, action, from_status, actor, reason, create_time)
                 VALUES (?, ?, ?, ?, ?, ?, ?)""".formatted(settings.tables().adminLog());
    }

    /** Inserts the action's row in {@code status} (RUNNING, DONE) in the transaction of {@code c}; returns its id. */
    public long open(Connection c, Action a, String status, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(openSql, Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, a.action());
            ps.setString(2, a.target());
            ps.setString(3, Check.storable(a.filter(), 2000));
            if (a.dryRunCount() == null) {
                ps.setNull(4, java.sql.Types.BIGINT);
            } else {
                ps.setLong(4, a.dryRunCount());
            }
            if (a.cap() == null) {
                ps.setNull(5, java.sql.Types.INTEGER);
            } else {
                ps.setInt(5, a.cap());
            }
            ps.setString(6, status);
            ps.setString(7, a.actor());
            ps.setString(8, a.reason());
            s.dialect().bindTime(ps, 9, now);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("the database reported no id for the admin action " + a.action());
                }
                return keys.getLong(1);
            }
        }
    }

    /** Records how action {@code id} ended: DONE or FAILED, what it changed, the error (clipped), when. */
    public void finish(Connection c, long id, String status, int changed, String error, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(finishSql)) {
            ps.setString(1, status);
            ps.setInt(2, changed);
            ps.setString(3, Check.storable(error, 1000));
            s.dialect().bindTime(ps, 4, now);
            ps.setLong(5, id);
            ps.executeUpdate();
        }
    }

    /** The rows {@code sql} selects ({@code id, event_no, <status>}, normally {@code ... FOR UPDATE}). */
    public List<Row> lock(Connection c, String sql, List<Object> params) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Binds.bind(ps, s.dialect(), params);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getInt(3)));
                }
            }
        }
        return rows;
    }

    /**
     * Changes each of {@code rows} (locked by this transaction) as {@code change} says, guarded by the status it
     * was locked in, and logs each change under {@code actionId} (null: a schema before version 8, whose log has
     * no action); returns the rows that changed.
     */
    public List<Row> apply(Connection c, Change change, List<Row> rows, Long actionId, String actor, String reason,
                           Instant now) throws SQLException {
        List<Row> changed = new ArrayList<>();
        if (rows.isEmpty()) {
            return changed;
        }
        // by primary key: MariaDB otherwise runs it through the (status, id) index while that status has few rows
        String updateSql = "UPDATE %s%s SET %s, version = version + 1, update_time = ? WHERE id = ? AND %s = ?"
                .formatted(change.table(), s.dialect().forceIndex("PRIMARY"), change.set(), change.statusColumn());
        try (PreparedStatement update = c.prepareStatement(updateSql)) {
            for (Row r : rows) {
                s.dialect().bindTime(update, 1, now);
                update.setLong(2, r.id());
                update.setInt(3, r.status());
                if (update.executeUpdate() == 1) {
                    changed.add(r);
                }
            }
        }
        log(c, change.table(), changed, change.logAction(), change.toStatus(), actionId, actor, reason, now);
        return changed;
    }

    /**
     * Logs {@code rows} of {@code table} under {@code actionId} without changing them (a reveal, a compensation
     * made runnable again): {@code toStatus} is the status after, or -1 for "as before".
     */
    public void log(Connection c, String table, List<Row> rows, String logAction, int toStatus, Long actionId,
                    String actor, String reason, Instant now) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(actionId == null ? legacyLogSql : logSql)) {
            for (Row r : rows) {
                ps.setString(1, table);
                ps.setString(2, r.eventNo());
                ps.setString(3, logAction);
                ps.setInt(4, r.status());
                if (actionId == null) {
                    ps.setString(5, actor);
                    ps.setString(6, reason);
                    s.dialect().bindTime(ps, 7, now);
                } else {
                    ps.setInt(5, toStatus < 0 ? r.status() : toStatus);
                    ps.setString(6, actor);
                    ps.setString(7, reason);
                    s.dialect().bindTime(ps, 8, now);
                    ps.setLong(9, actionId);
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Whether the database has the action table of schema version 8: an application may run this version on a
     * schema it has not upgraded yet, and {@code postbox.admin()} keeps working there (its log rows then belong
     * to no action). Asked on a connection of its own, as a failing statement would end a PostgreSQL transaction;
     * once true, never asked again.
     */
    public boolean actionsExist() {
        if (actionsExist) {
            return true;
        }
        try (Connection c = s.dataSource().getConnection()) {
            boolean exists;
            try (Statement st = c.createStatement()) {
                st.executeQuery("SELECT id FROM " + s.tables().adminAction() + " WHERE id = 0").close();
                exists = true;
            } catch (SQLException e) {
                exists = false;
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            actionsExist = exists;
            return exists;
        } catch (SQLException e) {
            return false;
        }
    }
}
