package dev.postbox.relay;

import dev.postbox.internal.Rows;
import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
        String head = "SELECT " + s.columns + " FROM " + s.table + " e";
        this.pendingSql = head + dialect.forceIndex("idx_status_id") + " WHERE e.deleted = 0 AND e.publish_status = 0"
                + s.orderGuard + " ORDER BY e.publish_status, e.id LIMIT ? FOR UPDATE SKIP LOCKED";
        this.dueSql = head + " WHERE e.deleted = 0 AND e.publish_status = 3 AND e.next_retry_time <= ?" + s.orderGuard
                + " ORDER BY e.publish_status, e.next_retry_time, e.id LIMIT ? FOR UPDATE SKIP LOCKED";
        this.expiredSql = head + " WHERE e.deleted = 0 AND e.publish_status = 1 AND e.lock_until <= ?" + s.orderGuard
                + " ORDER BY e.publish_status, e.lock_until, e.id LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    @Override
    public List<OutboxRecord> claim(Connection c, int limit, String owner, Instant now, Instant lockUntil)
            throws SQLException {
        TreeMap<Long, OutboxRecord> candidates = new TreeMap<>();
        select(c, pendingSql, null, limit, candidates);
        select(c, dueSql, now, limit, candidates);
        select(c, expiredSql, now, limit, candidates);
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

    private void select(Connection c, String sql, Instant now, int limit, TreeMap<Long, OutboxRecord> into)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (now != null) {
                dialect.bindTime(ps, i++, now);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OutboxRecord r = Rows.outbox(rs, dialect);
                    into.put(r.id(), r);
                }
            }
        }
    }
}
