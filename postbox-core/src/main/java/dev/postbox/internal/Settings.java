package dev.postbox.internal;

import dev.postbox.id.IdGenerator;
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
 * @param wakeUps       the relays of this Postbox running in this JVM
 */
public record Settings(DataSource dataSource, Dialect dialect, TableNames tables, Clock clock, IdGenerator ids,
                       int maxPayloadBytes, int maxHeadersBytes, String defaultSource, boolean notifyOnWrite,
                       WakeUps wakeUps) {

    /** The PostgreSQL NOTIFY channel of the outbox table. */
    public String notifyChannel() {
        return "postbox_" + tables.outbox();
    }

    /** The current time at the millisecond precision the time columns store. */
    public Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
