package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Writes the attempt history ({@code TableNames.eventAttempt()}, schema version 8): one row per failed attempt
 * of an outbox or message event, and one per lease takeover, written by the relay or worker in the same
 * transaction as the status change that records it, and only for rows that change actually changed. A
 * successful attempt writes nothing here, so the hot path is what it was. Thread-safe (immutable).
 */
public final class AttemptLog {

    /** {@code event_kind} of an outbox event's attempt. */
    public static final String OUTBOX = "OUTBOX";
    /** {@code event_kind} of a message event's attempt. */
    public static final String MESSAGE = "MESSAGE";
    /** {@code outcome}: the attempt failed and a retry is due at {@code next_retry_time}. */
    public static final String FAILED = "FAILED";
    /** {@code outcome}: the attempt failed and no retry is left (or the error is not retryable). */
    public static final String DEAD = "DEAD";
    /** {@code outcome}: the attempt failed with no retry left and the event type's policy cancelled the event. */
    public static final String CANCELLED = "CANCELLED";
    /** {@code outcome}: the relay holding the event stopped before it recorded an outcome; another took it over. */
    public static final String LEASE_EXPIRED = "LEASE_EXPIRED";
    /** Longest error text the column holds. */
    public static final int MAX_ERROR_LENGTH = 1000;

    /**
     * One row to write.
     *
     * @param attempt   the event's retry count after this attempt (a takeover: its retry count, unchanged)
     * @param error     why; made storable and clipped to {@link #MAX_ERROR_LENGTH}
     * @param instance  the relay or worker that made the attempt, or null when not known
     * @param nextRetry when the retry is due ({@link #FAILED} only), else null
     */
    public record Attempt(String kind, long eventId, String eventNo, int attempt, String outcome, String error,
                          String instance, Instant nextRetry) {
    }

    private final Dialect dialect;
    private final String insertSql;
    private final String fromMessageSql;

    /**
     * @param table        the attempt table
     * @param messageTable the message-event table, which {@link #copyOfMessage} reads
     */
    public AttemptLog(Dialect dialect, String table, String messageTable) {
        this.dialect = dialect;
        this.insertSql = """
                INSERT INTO %s (event_kind, event_id, event_no, attempt, outcome, error, instance, next_retry_time,\
                 create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""".formatted(table);
        this.fromMessageSql = """
                INSERT INTO %s (event_kind, event_id, event_no, attempt, outcome, error, instance, next_retry_time,\
                 create_time) SELECT ?, id, event_no, retry_count, ?, fail_reason, ?, next_retry_time, ? FROM %s\
                 WHERE id = ?""".formatted(table, messageTable);
    }

    /** Inserts {@code attempts} at {@code now} in one JDBC batch in the caller's transaction; nothing for none. */
    public void insert(Connection c, List<Attempt> attempts, Instant now) throws SQLException {
        if (attempts.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            for (Attempt a : attempts) {
                ps.setString(1, a.kind());
                ps.setLong(2, a.eventId());
                ps.setString(3, a.eventNo());
                ps.setInt(4, a.attempt());
                ps.setString(5, a.outcome());
                ps.setString(6, Check.clip(a.error(), MAX_ERROR_LENGTH));
                ps.setString(7, a.instance());
                dialect.bindTime(ps, 8, a.nextRetry());
                dialect.bindTime(ps, 9, now);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Inserts the attempt of message event {@code id} as the failure just written in the caller's transaction
     * left the row: its retry count, fail reason and next retry time; for writes whose new values only the row
     * holds (an application recording a failure through {@code MessageEvents}).
     */
    public void copyOfMessage(Connection c, long id, String outcome, String instance, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(fromMessageSql)) {
            ps.setString(1, MESSAGE);
            ps.setString(2, outcome);
            ps.setString(3, instance);
            dialect.bindTime(ps, 4, now);
            ps.setLong(5, id);
            ps.executeUpdate();
        }
    }
}
