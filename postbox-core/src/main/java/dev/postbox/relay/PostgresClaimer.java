package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL: one statement. The candidates are chosen, limited and locked (SKIP LOCKED) in a CTE,
 * which PostgreSQL evaluates exactly once; the planner trap of {@code UPDATE ... WHERE id IN (SELECT ...
 * LIMIT n FOR UPDATE SKIP LOCKED)} is that the subquery may be re-run or joined so that more than n rows
 * are locked and updated.
 */
final class PostgresClaimer implements Claimer {

    private final Dialect dialect;
    final String sql;

    PostgresClaimer(Dialect dialect, ClaimSql s) {
        this.dialect = dialect;
        // = ANY(ARRAY(...)): the claimed ids as one array, so the update is a primary-key lookup however big
        // the table is, never a hash join over it. RETURNING sees only the new row, so a takeover's attempt row
        // cannot name the relay that held the lease (Takeovers says "not known"): reading the old locked_by back
        // through the CTE (a second reference and a CASE subquery in RETURNING) made every claim dearer, the
        // drain 5-9 % slower over 8 alternating runs (scripts/bench drain --db postgres --events 50000)
        this.sql = """
                WITH c AS (SELECT e.id FROM %1$s e WHERE %2$s%3$s ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED)\
                 UPDATE %1$s AS u SET %4$s WHERE u.id = ANY (ARRAY(SELECT id FROM c)) RETURNING %5$s"""
                .formatted(s.table, s.claimable, s.orderGuard, s.leaseSet, ClaimSql.qualified("u", OutboxRows.COLUMNS));
    }

    @Override
    public List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant takeoverBefore,
                                    Instant lockUntil, Takeovers takeovers) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            dialect.bindTime(ps, 1, now);
            dialect.bindTime(ps, 2, takeoverBefore);
            ps.setInt(3, limit);
            ps.setString(4, ClaimSql.LEASE_EXPIRED);
            ps.setString(5, owner);
            dialect.bindTime(ps, 6, lockUntil);
            dialect.bindTime(ps, 7, now);
            dialect.bindTime(ps, 8, now);
            List<OutboxRecord> claimed = new ArrayList<>(limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OutboxRecord r = OutboxRows.read(rs, dialect);
                    claimed.add(r);
                    if (ClaimSql.LEASE_EXPIRED.equals(r.failReason())) {
                        takeovers.add(r, null);
                    }
                }
            }
            claimed.sort(java.util.Comparator.comparingLong(OutboxRecord::id));
            return claimed;
        }
    }
}
