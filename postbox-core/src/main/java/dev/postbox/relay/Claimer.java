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

    default List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant lockUntil)
            throws SQLException {
        return claim(c, limit, owner, now, now, lockUntil);
    }

    /**
     * As above; leases held by others are taken over only when they expired before {@code takeoverBefore}
     * (now, or far in the past while this relay's clock cannot be trusted to judge them).
     */
    default List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant takeoverBefore,
                                     Instant lockUntil) throws SQLException {
        return claim(c, limit, owner, now, takeoverBefore, lockUntil, new Takeovers());
    }

    /** As above, adding every takeover (an expired lease claimed) to {@code takeovers}. */
    List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant takeoverBefore,
                             Instant lockUntil, Takeovers takeovers) throws SQLException;

    /**
     * Whether claims (until commit) must not overlap within this JVM. Without SKIP LOCKED, concurrent
     * claimers read the same candidates and queue on each other's row locks; one at a time is faster.
     */
    default boolean serialized() {
        return false;
    }

    /** The follower claims of ordered mode for {@code dialect}. */
    static Followers followers(Dialect dialect, String table, java.util.Set<String> unorderedTopics) {
        ClaimSql s = new ClaimSql(table, true, unorderedTopics);
        return new Followers(dialect, s, unorderedTopics, dialect.forceIndex("idx_aggregate"));
    }

    /**
     * The strategy for {@code dialect}: one statement on PostgreSQL, SKIP LOCKED selects on MySQL, else
     * conditional updates. The one place where the relay chooses by dialect; everything else asks the
     * dialect's capabilities.
     */
    static Claimer forDialect(Dialect dialect, String table, boolean ordered, java.util.Set<String> unorderedTopics) {
        return switch (dialect.name()) {
            case "postgresql" -> new PostgresClaimer(dialect, new ClaimSql(table, ordered, unorderedTopics));
            case "mysql" -> new LockingSelectClaimer(dialect,
                    new ClaimSql(table, ordered, unorderedTopics, ClaimSql.Probes.FIRST_ID_PER_STATUS,
                            new ClaimSql.Hints(dialect.forceIndex("idx_status_id"),
                                    dialect.forceIndex("idx_status_retry_time"), dialect.forceIndex("idx_status_lock_until"),
                                    dialect.forceIndex("idx_aggregate_status"))));
            default -> new ConditionalClaimer(dialect, new ClaimSql(table, ordered, unorderedTopics,
                    ClaimSql.Probes.NOT_EXISTS_PER_STATUS, ClaimSql.Hints.NONE));
        };
    }
}
