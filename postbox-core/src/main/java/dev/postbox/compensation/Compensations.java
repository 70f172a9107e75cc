package dev.postbox.compensation;

import java.sql.Connection;
import java.util.Optional;

/**
 * Seed 003's compensation guard: {@code biz_compensation_log} has one row per (biz_type, biz_key,
 * action_type), so each compensation runs to completion at most once however many jobs, threads or
 * processes try it at the same time. The row is written in the caller's transaction before the action
 * (the unique key decides, never a lookup), the action runs in that same transaction, and the row becomes
 * DONE, or FAILED with the attempt count and the last error. A FAILED compensation may be run again (up
 * to an attempt limit); a DONE one never is. Thread-safe.
 *
 * <p>The log is the second of seed 003's four lines of defence; the action should still check the business
 * state with a conditional update (e.g. cancel only an order that is still CREATED).
 */
public interface Compensations {

    /** Attempts allowed by {@link #once(Connection, String, String, String, Action)}. */
    int DEFAULT_MAX_ATTEMPTS = 5;

    /** The compensation itself; runs on the caller's thread inside the caller's transaction. */
    @FunctionalInterface
    interface Action<T> {
        T run(Connection connection) throws Exception;
    }

    /** {@link #once(Connection, String, String, String, int, Action)} with {@value #DEFAULT_MAX_ATTEMPTS} attempts. */
    <T> CompensationResult<T> once(Connection connection, String bizType, String bizKey, String actionType, Action<T> action);

    /**
     * Runs {@code action} for ({@code bizType}, {@code bizKey}, {@code actionType}) unless that compensation
     * is already DONE, or has FAILED {@code maxAttempts} times. A concurrent call for the same key waits for
     * the first one's transaction and then sees its outcome, also when the caller's transaction read the log
     * before (MySQL's REPEATABLE READ: the existing row is read with a locking read). The call locks its own
     * log row only, by primary key: calls for different keys never wait for each other (on MySQL/MariaDB no
     * index gap is locked either; see {@link dev.postbox.jdbc.Dialect#locksIndexGaps()}). If the action throws,
     * its changes are rolled back to a savepoint, the failure is recorded (its text made storable: NUL,
     * control characters and unpaired surrogates become U+FFFD, clipped to 1,000) and FAILED is returned
     * (the exception is not rethrown); commit to keep the record. Never commits.
     *
     * @param bizType     e.g. {@code ORDER}; at most 64 characters
     * @param bizKey      e.g. the order number; at most 64 characters
     * @param actionType  e.g. {@code TIMEOUT_CANCEL}; at most 64 characters. The three keys are refused
     *                    (ValidationException) with a NUL, an unpaired surrogate or leading/trailing
     *                    whitespace, and counted as the column counts (see OutboxEvent)
     * @param maxAttempts 1..1000
     * @throws dev.postbox.common.ValidationException          bad key or limit, before any SQL
     * @throws dev.postbox.common.TransactionRequiredException the connection is in auto-commit mode
     * @throws dev.postbox.common.PostboxSqlException           the log could not be read or written; when
     *                                                  {@link dev.postbox.common.PostboxSqlException#retryable()
     *                                                  retryable()} (a deadlock with transactions on the same
     *                                                  key, e.g. in opposite orders) the database rolled the whole
     *                                                  transaction back and it may be run again from its start
     */
    <T> CompensationResult<T> once(Connection connection, String bizType, String bizKey, String actionType,
                                   int maxAttempts, Action<T> action);

    /** The log row of a compensation, read with a connection of the Postbox data source; empty if it never ran. */
    Optional<CompensationRecord> find(String bizType, String bizKey, String actionType);
}
