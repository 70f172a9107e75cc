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
import java.util.TreeSet;

/**
 * MySQL 8 / MariaDB 10.6+. Candidates are chosen by a plain (consistent, lock-free) read: pending, due
 * and expired rows by three selects, each walking the index that holds its rows in order
 * ({@code (status, id)}, {@code (status, next_retry_time)}, {@code (status, lock_until)}) with the order
 * guard, because one select over all three statuses would sort the whole backlog on every claim. Twice
 * the batch is read so that relays claiming at the same moment do not all want the same rows. The
 * chosen ids are then locked by primary key with {@code FOR UPDATE SKIP LOCKED}, re-checked claimable,
 * and updated.
 * <p>
 * The candidates are not read with the locking select itself because InnoDB keeps a lock on every row a
 * locking select examined until commit, also on the rows its WHERE rejected (MariaDB 10.11, READ
 * COMMITTED): a claim that walked past blocked events would hold them, and the relays recording or
 * claiming those rows would wait for it.
 */
final class LockingSelectClaimer implements Claimer {

    private final Dialect dialect;
    private final ClaimSql s;
    /** The candidate selects, as run (package-private for the plan tests). */
    final String pendingSql;
    final String dueSql;
    final String expiredSql;

    LockingSelectClaimer(Dialect dialect, ClaimSql s) {
        this.dialect = dialect;
        this.s = s;
        this.pendingSql = ClaimSql.select("e.id", s.pendingFrom);
        this.dueSql = ClaimSql.select("e.id", s.dueFrom);
        this.expiredSql = ClaimSql.select("e.id", s.expiredFrom);
    }

    @Override
    public List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant takeoverBefore,
                                    Instant lockUntil, Takeovers takeovers) throws SQLException {
        TreeSet<Long> ids = new TreeSet<>();
        int want = Math.min(2 * limit, RelayDefaults.MAX_BATCH_SIZE * 2);
        Candidates.RowReader id = rs -> ids.add(rs.getLong(1));
        Candidates.select(c, dialect, pendingSql, null, want, id);
        Candidates.select(c, dialect, dueSql, now, want, id);
        Candidates.select(c, dialect, expiredSql, takeoverBefore, want, id);
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Long> wanted = new ArrayList<>(ids).subList(0, Math.min(want, ids.size()));
        List<OutboxRecord> chosen = lock(c, wanted, limit, now, takeoverBefore);
        if (chosen.isEmpty()) {
            return List.of();
        }
        String sql = "UPDATE %s SET %s WHERE id IN (%s)".formatted(s.table, s.leaseSet, ClaimSql.placeholders(chosen.size()));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, ClaimSql.LEASE_EXPIRED);
            ps.setString(2, owner);
            dialect.bindTime(ps, 3, lockUntil);
            dialect.bindTime(ps, 4, now);
            dialect.bindTime(ps, 5, now);
            for (int i = 0; i < chosen.size(); i++) {
                ps.setLong(6 + i, chosen.get(i).id());
            }
            ps.executeUpdate();
        }
        List<OutboxRecord> claimed = new ArrayList<>(chosen.size());
        for (OutboxRecord r : chosen) {
            OutboxRecord leased = ClaimSql.leased(r, owner, now, lockUntil);
            claimed.add(leased);
            takeovers.ifExpired(r, leased);
        }
        return claimed;
    }

    /**
     * The locking select of {@code n} ids; parameters: the ids, now, the takeover cutoff, the limit. By primary
     * key whatever the statistics say: through a status index the locking read would walk (and skip) other
     * relays' rows of that status instead of reading just these ids.
     */
    String lockSql(int n) {
        return "SELECT %s FROM %s e%s WHERE e.id IN (%s) AND %s ORDER BY e.id LIMIT ? FOR UPDATE SKIP LOCKED"
                .formatted(s.columns, s.table, dialect.forceIndex("PRIMARY"), ClaimSql.placeholders(n), s.claimable);
    }

    /** Locks the first {@code limit} of {@code ids} that are still claimable and not locked by another claim. */
    private List<OutboxRecord> lock(Connection c, List<Long> ids, int limit, Instant now, Instant takeoverBefore)
            throws SQLException {
        String sql = lockSql(ids.size());
        List<OutboxRecord> rows = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (Long id : ids) {
                ps.setLong(i++, id);
            }
            dialect.bindTime(ps, i++, now);
            dialect.bindTime(ps, i++, takeoverBefore);
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(OutboxRows.read(rs, dialect));
                }
            }
        }
        return rows;
    }
}
