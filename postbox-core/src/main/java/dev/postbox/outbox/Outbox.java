package dev.postbox.outbox;

import java.sql.Connection;
import java.util.List;

/**
 * The write side of the outbox: inserts events into {@code biz_outbox_event} inside the caller's open
 * transaction, so the event commits or rolls back with the business change. Never commits, never
 * opens its own connection. Thread-safe.
 */
public interface Outbox {

    /**
     * Writes one event in the transaction of {@code connection}.
     *
     * @return {@code INSERTED}, or {@code DUPLICATE} when a row with the same {@code event_no} exists
     *         (then nothing at all was changed)
     * @throws dev.postbox.common.ValidationException           bad event, found before any SQL; nothing written
     * @throws dev.postbox.common.TransactionRequiredException  the connection is in auto-commit mode
     * @throws dev.postbox.common.PostboxSqlException            the database refused the insert
     */
    WriteResult write(Connection connection, OutboxEvent event);

    /**
     * Writes events in the transaction of {@code connection} with one multi-row INSERT per
     * {@value dev.postbox.common.PostboxDefaults#WRITE_BATCH_ROWS} events. Every event is validated before the
     * first statement; one bad event rejects the whole batch and writes nothing.
     *
     * @return one result per event, in order
     */
    List<WriteResult> writeAll(Connection connection, List<OutboxEvent> events);
}
