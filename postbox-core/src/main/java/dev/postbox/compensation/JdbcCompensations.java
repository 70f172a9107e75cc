package dev.postbox.compensation;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.compensation.CompensationLog.Key;
import dev.postbox.internal.Check;
import dev.postbox.internal.InsertIfAbsent;
import dev.postbox.internal.Settings;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Compensations} on plain JDBC. The log row is inserted (or an existing one locked by primary key and,
 * when FAILED, taken back to RUNNING by a conditional UPDATE) before a savepoint; the action runs after it, so
 * a failing action is undone while the record of its attempt stays. Only the caller's own row is locked
 * ({@link CompensationLog}): calls for different keys never wait for each other.
 */
final class JdbcCompensations implements Compensations {

    /** How a call starts: the attempt it runs on row {@code id}, or the result it ends with at once. */
    private record Start(long id, int attempts, CompensationResult<?> result) {
    }

    private final Settings settings;
    private final Dialect dialect;
    private final CompensationLog log;

    JdbcCompensations(Settings settings) {
        this.settings = settings;
        this.dialect = settings.dialect();
        this.log = new CompensationLog(settings);
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
        Start start;
        Savepoint savepoint;
        try {
            if (connection.getAutoCommit()) {
                throw new TransactionRequiredException(what);
            }
            start = start(connection, key, maxAttempts, what);
            if (start.result() != null) {
                @SuppressWarnings("unchecked")
                CompensationResult<T> early = (CompensationResult<T>) start.result();
                return early;
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
                finish(connection, start.id(), key, CompensationStatus.FAILED, Check.clip(String.valueOf(failure), 1000));
            } catch (SQLException e) {
                PostboxSqlException recording = new PostboxSqlException(what + ": recording the failed attempt "
                        + start.attempts(), e);
                recording.addSuppressed(failure);
                throw recording;
            }
            return new CompensationResult<>(CompensationResult.Outcome.FAILED, null, start.attempts(), failure);
        }
        try {
            connection.releaseSavepoint(savepoint);
            finish(connection, start.id(), key, CompensationStatus.DONE, null);
        } catch (SQLException e) {
            throw new PostboxSqlException(what + ": recording it as done", e);
        }
        return new CompensationResult<>(CompensationResult.Outcome.DONE, value, start.attempts(), null);
    }

    /**
     * Inserts the key's row, or locks the existing one by primary key and decides from its latest committed
     * version: DONE ends the call, a FAILED one with attempts left is taken back to RUNNING, anything else
     * (attempts used up, or RUNNING left by an action that committed halfway) gives up.
     */
    private Start start(Connection c, Key key, int maxAttempts, String what) throws SQLException {
        Instant now = settings.now();
        InsertIfAbsent.Outcome inserted = log.insert(c, key, now, true);
        if (inserted.inserted()) {
            return new Start(inserted.id(), 1, null);
        }
        Optional<CompensationRecord> existing = lockExisting(c, key, inserted);
        if (existing.isEmpty()) {
            // deleted (retention) after this transaction's snapshot showed it: the log no longer knows the key
            inserted = log.insert(c, key, now, false);
            if (inserted.inserted()) {
                return new Start(inserted.id(), 1, null);
            }
            existing = lockExisting(c, key, inserted);
        }
        CompensationRecord row = existing.orElseThrow(() ->
                new IllegalStateException(what + ": duplicate key reported but no row found"));
        if (row.status() == CompensationStatus.DONE) {
            return new Start(row.id(), row.attempts(),
                    new CompensationResult<>(CompensationResult.Outcome.ALREADY_DONE, null, row.attempts(), null));
        }
        if (!log.retake(c, row.id(), maxAttempts, now)) {
            return new Start(row.id(), row.attempts(),
                    new CompensationResult<>(CompensationResult.Outcome.GAVE_UP, null, row.attempts(), null));
        }
        return new Start(row.id(), row.attempts() + 1, null);
    }

    /** The row an insert found, locked by primary key in its latest committed version; empty if it is gone. */
    private Optional<CompensationRecord> lockExisting(Connection c, Key key, InsertIfAbsent.Outcome found)
            throws SQLException {
        Optional<Long> id = found.id() != 0 ? Optional.of(found.id()) : log.currentId(c, key);
        return id.isEmpty() ? Optional.empty() : log.lock(c, id.get());
    }

    private void finish(Connection c, long id, Key key, CompensationStatus status, String error) throws SQLException {
        if (!log.finish(c, id, status, error)) {
            throw new IllegalStateException("compensation " + key + " was not RUNNING when its outcome was recorded");
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
            return log.find(c, key);
        } catch (SQLException e) {
            throw new PostboxSqlException("reading compensation " + key, e);
        }
    }
}
