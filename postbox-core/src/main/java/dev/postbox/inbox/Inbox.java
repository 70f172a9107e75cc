package dev.postbox.inbox;

import java.sql.Connection;
import java.time.Duration;

/**
 * The idempotent consumer of seed 003: {@code biz_consume_log} holds one row per (consumer, event_no),
 * inserted in the consumer's own transaction right before its work. The unique key, not a lookup,
 * decides: of any number of concurrent or repeated deliveries of one event to one consumer, exactly one
 * runs the work and commits; the others are reported as {@link InboxResult.Outcome#DUPLICATE DUPLICATE}
 * and should simply be acknowledged. Thread-safe.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     InboxResult<Void> r = postbox.inbox().once(c, "inventory", envelope.eventNo(), () -> reserve(c, order));
 *     c.commit();                           // log row and work commit together; then acknowledge
 * }
 * }</pre>
 */
public interface Inbox {

    /** Work that returns a value; it runs on the caller's thread, inside the caller's transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws Exception;
    }

    /** Work without a value. */
    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }

    /**
     * Runs {@code work} once per ({@code consumer}, {@code eventNo}) in the transaction of {@code connection}.
     * The consume-log row is inserted first; when it already exists (committed by an earlier delivery, or
     * committed meanwhile by a concurrent one, which this call waits for) nothing runs and the result is
     * DUPLICATE. If {@code work} throws, the log row and everything the work did are rolled back to a
     * savepoint taken before the insert, and the exception propagates (a checked one wrapped in
     * {@link dev.postbox.common.PostboxException}); the event is then still unconsumed and a redelivery runs it.
     * Never commits: the caller commits the work and its log row together. Locks only this key's row: on
     * MySQL/MariaDB a redelivery whose row the transaction can already see is answered by a plain read, without
     * the duplicate-key error's lock on the index gap before the key, which would make the delivery of a
     * neighbouring event wait.
     *
     * @param consumer a stable name of the consuming service or handler, at most 128 characters
     * @param eventNo  the event's idempotency key ({@code event_no} of the envelope), at most 64 characters.
     *                 Both keys are refused (ValidationException) with a NUL, an unpaired surrogate or
     *                 leading/trailing whitespace, and counted as the column counts (see OutboxEvent)
     * @throws dev.postbox.common.ValidationException          bad consumer or eventNo, before any SQL
     * @throws dev.postbox.common.TransactionRequiredException the connection is in auto-commit mode
     * @throws dev.postbox.common.PostboxSqlException           the database refused the insert; when
     *                                                  {@link dev.postbox.common.PostboxSqlException#retryable()
     *                                                  retryable()} (SQLState class 40: a deadlock with deliveries
     *                                                  of the same events, e.g. in opposite orders, or on MySQL when
     *                                                  a concurrent delivery of the same event rolled back) the
     *                                                  transaction is gone: treat it as a failed delivery and let
     *                                                  the redelivery decide
     */
    <T> InboxResult<T> once(Connection connection, String consumer, String eventNo, Work<T> work);

    /** {@link #once(Connection, String, String, Work)} for work without a value (the result's value is null). */
    InboxResult<Void> once(Connection connection, String consumer, String eventNo, Action action);

    /**
     * Retention: deletes consume-log rows created more than {@code olderThan} ago (by the Postbox clock),
     * at most {@code batchSize} per statement, each batch committed on its own connection from the Postbox
     * data source. A redelivery older than the retention is no longer recognised, so keep it longer than
     * the broker's redelivery horizon.
     *
     * @return the number of rows deleted
     */
    long cleanup(Duration olderThan, int batchSize);
}
