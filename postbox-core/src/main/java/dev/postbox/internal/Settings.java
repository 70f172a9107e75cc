package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The frozen configuration every Postbox component shares, built once by {@code Postbox.Builder}.
 *
 * @param defaultSource event source used when an event names none; may be null
 * @param notifyOnWrite on PostgreSQL, whether a write also sends one NOTIFY (delivered at commit) that
 *                      wakes listening relays
 * @param notifyGate    which of those writes actually notify: at most one per interval
 * @param wakeUps       the relays of this Postbox running in this JVM
 * @param maxStatementBytes largest SQL statement the server accepts ({@link Dialect#maxStatementBytes}),
 *                      read at build; multi-row inserts are split to stay under it
 */
public record Settings(DataSource dataSource, Dialect dialect, TableNames tables, Clock clock,
                       int maxPayloadBytes, int maxHeadersBytes, String defaultSource, boolean notifyOnWrite,
                       NotifyGate notifyGate, WakeUps wakeUps, long maxStatementBytes) {

    /**
     * SQL for the PostgreSQL NOTIFY channel of the outbox table as the session sees it (one parameter: the
     * table name): {@code postbox_} and 16 hex digits of md5(current schema + "." + table). The schema is in it
     * so that applications sharing a database in different schemas (same table names) do not wake each
     * other's relays; it is hashed because a channel name must stay under 64 bytes. The writers' pg_notify and
     * the relay's LISTEN both compute it on the server, so they agree for every search_path.
     */
    public static final String NOTIFY_CHANNEL_SQL =
            "'postbox_' || left(md5(coalesce(current_schema(), '') || '.' || ?), 16)";

    /**
     * Bytes one row's other columns (keys, topic, remark, ... at 4 bytes a character, escaped) and the SQL
     * text take at most in an INSERT statement.
     */
    public static final int ROW_OVERHEAD_BYTES = 16 * 1024;

    /**
     * Largest size of one row in an INSERT sent as text: payload and headers may double when the driver
     * escapes quotes and backslashes.
     */
    public static long statementBytes(long payloadBytes, long headersBytes) {
        return 2 * (payloadBytes + headersBytes) + ROW_OVERHEAD_BYTES;
    }

    /** The current time at the millisecond precision the time columns store. */
    public Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
