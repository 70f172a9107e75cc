package dev.postbox.compensation;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.internal.Check;
import dev.postbox.internal.InsertIfAbsent;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Compensations} on plain JDBC. The log row is inserted (or a FAILED one taken back to RUNNING by a
 * conditional UPDATE) before a savepoint; the action runs after it, so a failing action is undone while
 * the record of its attempt stays.
 */
final class JdbcCompensations implements Compensations {

    private record Key(String bizType, String bizKey, String actionType) {
        @Override
        public String toString() {
            return bizType + "/" + bizKey + "/" + actionType;
        }
    }

    /** The condition on a log row's key; parameters: biz_type, biz_key, action_type. */
    private static final String BY_KEY = "WHERE biz_type = ? AND biz_key = ? AND action_type = ?";

    private final Settings settings;
    private final Dialect dialect;
    private final String table;
    private final InsertIfAbsent insert;
    private final String selectSql;
    private final String lockingSelectSql;
    private final String retakeSql;
    private final String finishSql;

    JdbcCompensations(Settings settings) {
        this.settings = settings;
        this.dialect = settings.dialect();
        this.table = settings.tables().compensationLog();
        this.insert = new InsertIfAbsent(dialect, table,
                "biz_type, biz_key, action_type, compensate_status, attempts, create_time, update_time",
                "(?, ?, ?, '%s', 1, ?, ?)".formatted(CompensationStatus.RUNNING.name()), "biz_type, biz_key, action_type",
                "uk_biz_action");
        this.selectSql = """
                SELECT id, biz_type, biz_key, action_type, compensate_status, attempts, last_error, create_time,
                       update_time FROM %s %s""".formatted(table, BY_KEY);
        // After a duplicate key the row exists but may be newer than the caller's snapshot (MySQL's
        // REPEATABLE READ, when the caller's transaction read before): a locking read sees the latest
        // committed version.
        this.lockingSelectSql = "%s FOR UPDATE".formatted(selectSql);
        this.retakeSql = """
                UPDATE %s SET compensate_status = '%s', attempts = attempts + 1, update_time = ?
                 %s AND compensate_status = '%s' AND attempts < ?""".formatted(table, CompensationStatus.RUNNING.name(),
                BY_KEY, CompensationStatus.FAILED.name());
        this.finishSql = """
                UPDATE %s SET compensate_status = ?, last_error = COALESCE(?, last_error), update_time = ?
                 %s AND compensate_status = '%s'""".formatted(table, BY_KEY, CompensationStatus.RUNNING.name());
    }

    @Override
    public <T> CompensationResult<T> once(Connection connection, String bizType, String bizKey, String actionType,
                                          Action<T> action) {
        return once(connection, bizType, bizKey, actionType, DEFAULT_MAX_ATTEMPTS, action);
    }

    @Override
    public <T> CompensationResult<T> once(Connection connection, String bizType, String bizKey, String actionType,
                                          int maxAttempts, Action<T> action) {
        Objects.requireNonNull(connection, "connection");
        Key key = key(bizType, bizKey, actionType);
        Check.range("maxAttempts", maxAttempts, 1, 1000);
        Objects.requireNonNull(action, "action");
        String what = "compensation " + key;
        int attempts;
        Savepoint savepoint;
        try {
            if (connection.getAutoCommit()) {
                throw new TransactionRequiredException(what);
            }
            Instant now = settings.now();
            boolean inserted = insert.insert(connection, ps -> {
                bindKey(ps, 1, key);
                dialect.bindTime(ps, 4, now);
                dialect.bindTime(ps, 5, now);
            });
            if (inserted) {
                attempts = 1;
            } else {
                CompensationRecord existing = select(connection, key, lockingSelectSql).orElseThrow(() ->
                        new IllegalStateException(what + ": duplicate key reported but no row found"));
                if (existing.status() == CompensationStatus.DONE) {
                    return new CompensationResult<>(CompensationResult.Outcome.ALREADY_DONE, null, existing.attempts(), null);
                }
                if (!retake(connection, key, maxAttempts, now)) {
                    // another caller finished it meanwhile, or the attempts are used up
                    CompensationRecord latest = select(connection, key, lockingSelectSql).orElseThrow();
                    CompensationResult.Outcome outcome = latest.status() == CompensationStatus.DONE
                            ? CompensationResult.Outcome.ALREADY_DONE : CompensationResult.Outcome.GAVE_UP;
                    return new CompensationResult<>(outcome, null, latest.attempts(), null);
                }
                attempts = select(connection, key, lockingSelectSql).orElseThrow().attempts();
            }
            savepoint = connection.setSavepoint();
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
        T value;
        try {
            value = action.run(connection);
        } catch (Exception failure) {
            try {
                connection.rollback(savepoint);
                finish(connection, key, CompensationStatus.FAILED, Check.clip(String.valueOf(failure), 1000));
            } catch (SQLException e) {
                PostboxSqlException recording = new PostboxSqlException(what + ": recording the failed attempt " + attempts, e);
                recording.addSuppressed(failure);
                throw recording;
            }
            return new CompensationResult<>(CompensationResult.Outcome.FAILED, null, attempts, failure);
        }
        try {
            connection.releaseSavepoint(savepoint);
            finish(connection, key, CompensationStatus.DONE, null);
        } catch (SQLException e) {
            throw new PostboxSqlException(what + ": recording it as done", e);
        }
        return new CompensationResult<>(CompensationResult.Outcome.DONE, value, attempts, null);
    }

    private boolean retake(Connection c, Key key, int maxAttempts, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(retakeSql)) {
            dialect.bindTime(ps, 1, now);
            bindKey(ps, 2, key);
            ps.setInt(5, maxAttempts);
            return ps.executeUpdate() == 1;
        }
    }

    private void finish(Connection c, Key key, CompensationStatus status, String error) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(finishSql)) {
            ps.setString(1, status.name());
            ps.setString(2, error);
            dialect.bindTime(ps, 3, settings.now());
            bindKey(ps, 4, key);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("compensation " + key + " was not RUNNING when its outcome was recorded");
            }
        }
    }

    private static void bindKey(PreparedStatement ps, int index, Key key) throws SQLException {
        ps.setString(index, key.bizType());
        ps.setString(index + 1, key.bizKey());
        ps.setString(index + 2, key.actionType());
    }

    private Optional<CompensationRecord> select(Connection c, Key key, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindKey(ps, 1, key);
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
    }

    private Key key(String bizType, String bizKey, String actionType) {
        return new Key(Check.key(dialect, "bizType", bizType, 64), Check.key(dialect, "bizKey", bizKey, 64),
                Check.key(dialect, "actionType", actionType, 64));
    }

    @Override
    public Optional<CompensationRecord> find(String bizType, String bizKey, String actionType) {
        Key key = key(bizType, bizKey, actionType);
        try (Connection c = settings.dataSource().getConnection()) {
            return select(c, key, selectSql);
        } catch (SQLException e) {
            throw new PostboxSqlException("reading compensation " + key, e);
        }
    }
}
