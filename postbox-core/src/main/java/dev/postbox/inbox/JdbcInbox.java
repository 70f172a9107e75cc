package dev.postbox.inbox;

import dev.postbox.common.PostboxException;
import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.TransactionRequiredException;
import dev.postbox.internal.BatchDelete;
import dev.postbox.internal.Check;
import dev.postbox.internal.InsertIfAbsent;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * {@link Inbox} on plain JDBC: insert the log row first, under a savepoint, then run the work. A redelivery of
 * an event whose row the transaction can see is answered without a lock ({@link InsertIfAbsent}).
 */
final class JdbcInbox implements Inbox {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcInbox.class);

    /** Stored in consume_status: the row only ever commits together with the finished work. */
    static final String DONE = "DONE";

    private final Settings settings;
    private final InboxListener listener;
    private final InsertIfAbsent insert;
    private final BatchDelete cleanup;

    JdbcInbox(Settings settings, InboxListener listener) {
        this.settings = settings;
        this.listener = listener;
        String t = settings.tables().consumeLog();
        this.insert = new InsertIfAbsent(settings.dialect(), t,
                "consumer, event_no, consume_status, create_time, update_time", "(?, ?, ?, ?, ?)",
                "consumer, event_no", "uk_consumer_event_no");
        this.cleanup = new BatchDelete(settings, t, "create_time");
    }

    @Override
    public InboxResult<Void> once(Connection connection, String consumer, String eventNo, Action action) {
        Objects.requireNonNull(action, "action");
        return once(connection, consumer, eventNo, () -> {
            action.run();
            return null;
        });
    }

    @Override
    public <T> InboxResult<T> once(Connection connection, String consumer, String eventNo, Work<T> work) {
        Objects.requireNonNull(connection, "connection");
        Check.key(settings.dialect(), "consumer", consumer, 128);
        Check.key(settings.dialect(), "eventNo", eventNo, 64);
        Objects.requireNonNull(work, "work");
        InboxResult<T> result;
        try {
            result = run(connection, consumer, eventNo, work);
        } catch (RuntimeException | Error e) {
            tell(() -> listener.failed(consumer, eventNo, e));
            throw e;
        }
        tell(() -> listener.delivered(consumer, eventNo, result.outcome()));
        return result;
    }

    /** A listener never turns a delivery into a failure. */
    private static void tell(Runnable hook) {
        try {
            hook.run();
        } catch (RuntimeException e) {
            log.warn("An inbox listener failed: {}", e.toString());
        }
    }

    private <T> InboxResult<T> run(Connection connection, String consumer, String eventNo, Work<T> work) {
        String what = "inbox of consumer '" + consumer + "' for event " + eventNo;
        Savepoint savepoint;
        try {
            if (connection.getAutoCommit()) {
                throw new TransactionRequiredException(what);
            }
            savepoint = connection.setSavepoint();
            Instant now = settings.now();
            boolean inserted;
            try {
                inserted = insert.insert(connection, ps -> {
                    ps.setString(1, consumer);
                    ps.setString(2, eventNo);
                }, ps -> {
                    ps.setString(3, DONE);
                    settings.dialect().bindTime(ps, 4, now);
                    settings.dialect().bindTime(ps, 5, now);
                }).inserted();
            } catch (SQLException e) {
                // e.g. a deadlock victim on MySQL, whose whole transaction is already gone with the savepoint
                try {
                    connection.rollback(savepoint);
                } catch (SQLException gone) {
                    e.addSuppressed(gone);
                }
                throw e;
            }
            if (!inserted) {
                connection.releaseSavepoint(savepoint);
                return new InboxResult<>(InboxResult.Outcome.DUPLICATE, null);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
        T value;
        try {
            value = work.run();
        } catch (Throwable t) {
            undo(connection, savepoint, what, t);
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            throw new PostboxException(what + ": the work failed and was rolled back: " + t, t);
        }
        try {
            connection.releaseSavepoint(savepoint);
        } catch (SQLException e) {
            throw new PostboxSqlException(what + ": releasing the savepoint", e);
        }
        return new InboxResult<>(InboxResult.Outcome.RAN, value);
    }

    private static void undo(Connection connection, Savepoint savepoint, String what, Throwable failure) {
        try {
            connection.rollback(savepoint);
        } catch (SQLException e) {
            // the work may have broken the connection; the caller's rollback (or the lost connection) undoes it all
            failure.addSuppressed(new PostboxSqlException(what + ": rolling back to the savepoint", e));
        }
    }

    @Override
    public long cleanup(Duration olderThan, int batchSize) {
        return cleanup.run(olderThan, batchSize);
    }
}
