package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * How a worker claims due message events on one database: moves up to a limit of PENDING events, and
 * FAILED ones whose {@code next_retry_time} has passed, of the worker's event types to PROCESSING,
 * bumping {@code version}, and returns them as claimed. Each database does it its own way (one
 * implementation per way); {@link #of} chooses once per worker from the dialect's capabilities.
 */
interface MessageClaim {

    /** Claims up to {@code limit} due events; returns them as PROCESSING with the claimed version, in id order. */
    List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException;

    /** Whether claims must not overlap within this JVM (concurrent claimers would collide on the same rows). */
    boolean serialized();

    /** The way {@code dialect} claims events of {@code types} from {@code table}. */
    static MessageClaim of(Dialect dialect, String table, List<String> types) {
        if (!dialect.claimsWithSkipLocked()) {
            return new ConditionalMessageClaim(dialect, table, types);
        }
        return dialect.returnsUpdatedRows() ? new PostgresMessageClaim(dialect, table, types)
                : new MySqlMessageClaim(dialect, table, types);
    }
}
