package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * MySQL 8 / MariaDB 10.6+: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then an UPDATE of the locked ids.
 * Pending, due and expired rows are read by three selects, each walking the index that holds its rows in
 * order ({@code (status, id)}, {@code (status, next_retry_time)}, {@code (status, lock_until)}), because
 * one select over all three statuses would sort the whole backlog on every claim.
 */
final class LockingSelectClaimer implements Claimer {

    private final Dialect dialect;
    private final ClaimSql s;
    private final String pendingSql;
    private final String dueSql;
    private final String expiredSql;

    LockingSelectClaimer(Dialect dialect, ClaimSql s) {
        this.dialect = dialect;
        this.s = s;
        this.pendingSql = s.pendingSelect + " FOR UPDATE SKIP LOCKED";
        this.dueSql = s.dueSelect + " FOR UPDATE SKIP LOCKED";
        this.expiredSql = s.expiredSelect + " FOR UPDATE SKIP LOCKED";
    }

    @Override
    public List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant lockUntil)
            throws SQLException {
        TreeMap<Long, OutboxRecord> candidates = new TreeMap<>();
        Candidates.select(c, dialect, pendingSql, null, limit, candidates);
        Candidates.select(c, dialect, dueSql, now, limit, candidates);
        Candidates.select(c, dialect, expiredSql, now, limit, candidates);
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<OutboxRecord> chosen = new ArrayList<>(candidates.values()).subList(0, Math.min(limit, candidates.size()));
        StringBuilder sql = new StringBuilder("UPDATE ").append(s.table).append(" SET ").append(s.leaseSet)
                .append(" WHERE id IN (");
        for (int i = 0; i < chosen.size(); i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        sql.append(')');
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
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
            claimed.add(ClaimSql.leased(r, owner, now, lockUntil));
        }
        claimed.sort(Comparator.comparingLong(OutboxRecord::id));
        return claimed;
    }
}
