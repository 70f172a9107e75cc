package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Claims where claims do not skip locked rows (H2): the due rows are read, then each is claimed by an
 * update conditional on the version read, and the per-row count says who won. Serialized within the JVM,
 * where concurrent claimers would otherwise collide on the same rows.
 */
final class ConditionalMessageClaim implements MessageClaim {

    private final Dialect dialect;
    private final List<String> types;
    private final String pendingSql;
    private final String dueSql;
    private final String claimSql;

    ConditionalMessageClaim(Dialect dialect, String table, List<String> types) {
        this.dialect = dialect;
        this.types = List.copyOf(types);
        this.pendingSql = candidates(table, "e.event_status = %d".formatted(MessageStatus.PENDING.code()));
        this.dueSql = candidates(table, "e.event_status = %d AND e.next_retry_time <= ?".formatted(MessageStatus.FAILED.code()));
        this.claimSql = """
                UPDATE %s SET event_status = %d, last_handle_time = ?, version = version + 1, update_time = ?
                 WHERE id = ? AND version = ?""".formatted(table, MessageStatus.PROCESSING.code());
    }

    /** Candidates matching {@code status}, in id order. */
    private String candidates(String table, String status) {
        return """
                SELECT %s FROM %s e WHERE e.deleted = 0 AND %s AND e.event_type IN (%s)
                 ORDER BY e.id LIMIT ?""".formatted(MessageRows.COLUMNS, table, status, MessageSql.parameters(types.size()));
    }

    @Override
    public boolean serialized() {
        return true;
    }

    @Override
    public List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException {
        TreeMap<Long, MessageRecord> candidates = new TreeMap<>();
        MessageSql.RowReader collect = rs -> {
            MessageRecord r = MessageRows.read(rs, dialect);
            candidates.put(r.id(), r);
        };
        MessageSql.query(c, dialect, pendingSql, null, types, limit, collect);
        MessageSql.query(c, dialect, dueSql, now, types, limit, collect);
        List<MessageRecord> chosen = new ArrayList<>(candidates.values()).subList(0, Math.min(limit, candidates.size()));
        if (chosen.isEmpty()) {
            return List.of();
        }
        List<MessageRecord> claimed = new ArrayList<>(chosen.size());
        try (PreparedStatement ps = c.prepareStatement(claimSql)) {
            for (MessageRecord r : chosen) {
                dialect.bindTime(ps, 1, now);
                dialect.bindTime(ps, 2, now);
                ps.setLong(3, r.id());
                ps.setInt(4, r.version());
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < chosen.size(); i++) {
                if (counts[i] == 1) {
                    claimed.add(MessageSql.processing(chosen.get(i), now));
                }
            }
        }
        return claimed;
    }
}
