package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Claims where the database skips locked rows but an UPDATE returns nothing (MySQL, MariaDB): candidates
 * by a plain, lock-free read, then locked by primary key with {@code SKIP LOCKED} (re-checked under the
 * lock, the plain read may be stale), then updated by id. A locking select over the status index would
 * keep every row it examined locked until commit, the other event types' rows it walked past too (InnoDB,
 * READ COMMITTED), and other workers' claims and outcome updates of those rows would wait for it.
 */
final class MySqlMessageClaim implements MessageClaim {

    private final Dialect dialect;
    private final String table;
    private final List<String> types;
    private final String pendingSql;
    private final String dueSql;

    MySqlMessageClaim(Dialect dialect, String table, List<String> types) {
        this.dialect = dialect;
        this.table = table;
        this.types = List.copyOf(types);
        this.pendingSql = candidates("e.event_status = %d".formatted(MessageStatus.PENDING.code()));
        this.dueSql = candidates("e.event_status = %d AND e.next_retry_time <= ?".formatted(MessageStatus.FAILED.code()));
    }

    /** The ids of candidates matching {@code status}, in the order of the status index. */
    private String candidates(String status) {
        // ORDER BY the index's own columns, so the read stops after n rows instead of sorting the whole backlog
        return """
                SELECT e.id FROM %s e%s WHERE e.deleted = 0 AND %s AND e.event_type IN (%s)
                 ORDER BY e.next_retry_time, e.retry_count, e.id LIMIT ?""".formatted(table,
                dialect.forceIndex("idx_status_retry_time"), status, MessageSql.parameters(types.size()));
    }

    @Override
    public boolean serialized() {
        return false;
    }

    @Override
    public List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException {
        TreeSet<Long> ids = new TreeSet<>();
        int want = 2 * limit; // twice the batch, so that workers claiming at the same moment do not all want the same rows
        MessageSql.query(c, dialect, pendingSql, null, types, want, rs -> ids.add(rs.getLong(1)));
        MessageSql.query(c, dialect, dueSql, now, types, want, rs -> ids.add(rs.getLong(1)));
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Long> wanted = new ArrayList<>(ids).subList(0, Math.min(want, ids.size()));
        List<MessageRecord> chosen = lock(c, wanted, limit, now);
        if (chosen.isEmpty()) {
            return List.of();
        }
        String update = """
                UPDATE %s SET event_status = %d, last_handle_time = ?, version = version + 1, update_time = ?
                 WHERE id IN (%s)""".formatted(table, MessageStatus.PROCESSING.code(), MessageSql.parameters(chosen.size()));
        try (PreparedStatement ps = c.prepareStatement(update)) {
            dialect.bindTime(ps, 1, now);
            dialect.bindTime(ps, 2, now);
            for (int i = 0; i < chosen.size(); i++) {
                ps.setLong(3 + i, chosen.get(i).id());
            }
            ps.executeUpdate();
        }
        List<MessageRecord> claimed = new ArrayList<>(chosen.size());
        chosen.forEach(r -> claimed.add(MessageSql.processing(r, now)));
        return claimed;
    }

    /** Locks up to {@code limit} of {@code wanted} that are still due, skipping those another claim holds. */
    private List<MessageRecord> lock(Connection c, List<Long> wanted, int limit, Instant now) throws SQLException {
        String sql = """
                SELECT %s FROM %s e WHERE e.id IN (%s) AND e.deleted = 0
                   AND (e.event_status = %d OR (e.event_status = %d AND e.next_retry_time <= ?))
                 ORDER BY e.id LIMIT ? FOR UPDATE SKIP LOCKED""".formatted(MessageRows.COLUMNS, table,
                MessageSql.parameters(wanted.size()), MessageStatus.PENDING.code(), MessageStatus.FAILED.code());
        List<MessageRecord> chosen = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (Long id : wanted) {
                ps.setLong(i++, id);
            }
            dialect.bindTime(ps, i++, now);
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    chosen.add(MessageRows.read(rs, dialect));
                }
            }
        }
        return chosen;
    }
}
