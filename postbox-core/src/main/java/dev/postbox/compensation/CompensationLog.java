package dev.postbox.compensation;

import dev.postbox.internal.InsertIfAbsent;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * The SQL of {@code biz_compensation_log} that runs in the caller's transaction. The key is only ever read
 * or inserted; every lock on an existing row is taken, and every change made, by primary key, so that a call
 * locks its own row and nothing else: no gap of the unique key or of the status index, which on InnoDB would
 * make the insert of another key wait for this transaction and two such transactions deadlock (see
 * {@link Dialect#locksIndexGaps()}). MariaDB picks {@code idx_status_update_time} for an UPDATE by key and
 * status while that status has one row, scanning and locking the status's whole range: the UPDATEs here name
 * the primary key's index ({@link Dialect#forceIndex}).
 */
final class CompensationLog {

    /** A key of the log. */
    record Key(String bizType, String bizKey, String actionType) {
        @Override
        public String toString() {
            return bizType + "/" + bizKey + "/" + actionType;
        }
    }

    private static final String COLUMNS = """
            id, biz_type, biz_key, action_type, compensate_status, attempts, last_error, create_time, update_time""";
    /** The condition on a log row's key; parameters: biz_type, biz_key, action_type. */
    private static final String BY_KEY = " WHERE biz_type = ? AND biz_key = ? AND action_type = ?";

    private final Settings settings;
    private final Dialect dialect;
    private final InsertIfAbsent insert;
    private final String selectSql;
    private final String currentIdSql;
    private final String lockSql;
    private final String retakeSql;
    private final String finishSql;

    CompensationLog(Settings settings) {
        this.settings = settings;
        this.dialect = settings.dialect();
        String table = settings.tables().compensationLog();
        this.insert = new InsertIfAbsent(dialect, table,
                "biz_type, biz_key, action_type, compensate_status, attempts, create_time, update_time",
                "(?, ?, ?, '%s', 1, ?, ?)".formatted(CompensationStatus.RUNNING.name()), "biz_type, biz_key, action_type",
                "uk_biz_action");
        this.selectSql = "SELECT " + COLUMNS + " FROM " + table + BY_KEY;
        this.currentIdSql = "SELECT id FROM " + table + BY_KEY + dialect.duplicateRowLock();
        // a locking read sees the latest committed version, also when the caller's snapshot is older
        // (MySQL's REPEATABLE READ, when the caller's transaction read before)
        this.lockSql = "SELECT " + COLUMNS + " FROM " + table + " WHERE id = ? FOR UPDATE";
        String byId = table + dialect.forceIndex("PRIMARY");
        this.retakeSql = """
                UPDATE %s SET compensate_status = '%s', attempts = attempts + 1, update_time = ?
                 WHERE id = ? AND compensate_status = '%s' AND attempts < ?""".formatted(byId,
                CompensationStatus.RUNNING.name(), CompensationStatus.FAILED.name());
        this.finishSql = """
                UPDATE %s SET compensate_status = ?, last_error = COALESCE(?, last_error), update_time = ?
                 WHERE id = ? AND compensate_status = '%s'""".formatted(byId, CompensationStatus.RUNNING.name());
    }

    /**
     * Inserts the key's row as RUNNING, its first attempt, unless the key exists. {@code looking}: first look
     * for a row the transaction can see (false for a key whose row was seen and then found deleted).
     */
    InsertIfAbsent.Outcome insert(Connection c, Key key, Instant now, boolean looking) throws SQLException {
        InsertIfAbsent.Binder keyBinder = ps -> bindKey(ps, 1, key);
        InsertIfAbsent.Binder times = ps -> {
            dialect.bindTime(ps, 4, now);
            dialect.bindTime(ps, 5, now);
        };
        return looking ? insert.insert(c, keyBinder, times) : insert.insertWithoutLooking(c, keyBinder, times);
    }

    /** The id of the key's row, which an INSERT just found, in its latest committed version; empty if gone since. */
    Optional<Long> currentId(Connection c, Key key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(currentIdSql)) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        }
    }

    /** Locks the row {@code id} and reads its latest committed version; empty if it was deleted (retention). */
    Optional<CompensationRecord> lock(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockSql)) {
            ps.setLong(1, id);
            return read(ps);
        }
    }

    /** Takes a FAILED row with attempts left back to RUNNING, counting the attempt; false if it is not one. */
    boolean retake(Connection c, long id, int maxAttempts, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(retakeSql)) {
            dialect.bindTime(ps, 1, now);
            ps.setLong(2, id);
            ps.setInt(3, maxAttempts);
            return ps.executeUpdate() == 1;
        }
    }

    /** Records the outcome of the attempt on the RUNNING row {@code id}; false if it was not RUNNING. */
    boolean finish(Connection c, long id, CompensationStatus status, String error) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(finishSql)) {
            ps.setString(1, status.name());
            ps.setString(2, error);
            dialect.bindTime(ps, 3, settings.now());
            ps.setLong(4, id);
            return ps.executeUpdate() == 1;
        }
    }

    /** The key's row as the connection sees it, without a lock. */
    Optional<CompensationRecord> find(Connection c, Key key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(selectSql)) {
            bindKey(ps, 1, key);
            return read(ps);
        }
    }

    private Optional<CompensationRecord> read(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(new CompensationRecord(rs.getLong("id"), rs.getString("biz_type"), rs.getString("biz_key"),
                    rs.getString("action_type"), CompensationStatus.valueOf(rs.getString("compensate_status")),
                    rs.getInt("attempts"), rs.getString("last_error"), dialect.readTime(rs, "create_time"),
                    dialect.readTime(rs, "update_time")));
        }
    }

    private static void bindKey(PreparedStatement ps, int index, Key key) throws SQLException {
        ps.setString(index, key.bizType());
        ps.setString(index + 1, key.bizKey());
        ps.setString(index + 2, key.actionType());
    }
}
