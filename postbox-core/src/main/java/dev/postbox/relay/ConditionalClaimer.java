package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Databases without SKIP LOCKED (H2, MySQL 5.7): read candidates without locks, then claim each with a
 * conditional UPDATE on the version that was read; the per-row update count in the JDBC batch says
 * which rows this relay won. Another relay's claim bumps the version, so two relays never win one row.
 */
final class ConditionalClaimer implements Claimer {

    private final Dialect dialect;
    private final ClaimSql s;
    private final String claimSql;

    ConditionalClaimer(Dialect dialect, ClaimSql s) {
        this.dialect = dialect;
        this.s = s;
        // by primary key and the version read: every claim and admin action bumps the version, so an
        // unchanged version means the row is still as claimable as when it was read (a status condition
        // here would make H2 use a status index instead of the primary key)
        this.claimSql = "UPDATE %s SET %s WHERE id = ? AND version = ?".formatted(s.table, s.leaseSet);
    }

    @Override
    public boolean serialized() {
        return true;
    }

    @Override
    public List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant takeoverBefore,
                                    Instant lockUntil, Takeovers takeovers) throws SQLException {
        List<OutboxRecord> candidates = Candidates.all(c, dialect, s, "", now, takeoverBefore, limit);
        if (candidates.isEmpty()) {
            return List.of();
        }
        int[] counts;
        try (PreparedStatement ps = c.prepareStatement(claimSql)) {
            for (OutboxRecord r : candidates) {
                ps.setString(1, ClaimSql.LEASE_EXPIRED);
                ps.setString(2, owner);
                dialect.bindTime(ps, 3, lockUntil);
                dialect.bindTime(ps, 4, now);
                dialect.bindTime(ps, 5, now);
                ps.setLong(6, r.id());
                ps.setInt(7, r.version());
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        List<OutboxRecord> claimed = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            if (counts[i] == 1) {
                OutboxRecord leased = ClaimSql.leased(candidates.get(i), owner, now, lockUntil);
                claimed.add(leased);
                takeovers.ifExpired(candidates.get(i), leased); // the row as read: the version it won by is unchanged
            }
        }
        return claimed;
    }
}
