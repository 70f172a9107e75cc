package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Claims up to {@code limit} claimable events for {@code owner} in the caller's (short) transaction and
 * returns them as they are after the claim: PUBLISHING, leased until {@code lockUntil}, version bumped.
 */
interface Claimer {

    List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant lockUntil) throws SQLException;

    /** The strategy for {@code dialect}: one statement on PostgreSQL, SKIP LOCKED selects on MySQL, else conditional updates. */
    static Claimer forDialect(Dialect dialect, ClaimSql sql) {
        return switch (dialect.name()) {
            case "postgresql" -> new PostgresClaimer(dialect, sql);
            case "mysql" -> new LockingSelectClaimer(dialect, sql);
            default -> new ConditionalClaimer(dialect, sql);
        };
    }
}
