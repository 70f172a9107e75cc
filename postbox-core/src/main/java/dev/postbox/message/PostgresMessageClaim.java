package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Claims in one statement where the database skips locked rows and returns what an UPDATE changed
 * (PostgreSQL): the due rows are locked with {@code SKIP LOCKED} in a CTE and updated by id, so that
 * concurrent workers take different rows and never wait for each other.
 */
final class PostgresMessageClaim implements MessageClaim {

    private final Dialect dialect;
    private final List<String> types;
    private final String sql;

    PostgresMessageClaim(Dialect dialect, String table, List<String> types) {
        this.dialect = dialect;
        this.types = List.copyOf(types);
        this.sql = """
                WITH c AS (SELECT e.id FROM %1$s e WHERE e.deleted = 0 AND e.event_status IN (%2$d, %3$d)
                            AND (e.event_status = %2$d OR e.next_retry_time <= ?) AND e.event_type IN (%4$s)
                          ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED)
                UPDATE %1$s AS u SET event_status = %5$d, last_handle_time = ?, version = version + 1, update_time = ?
                 WHERE u.id = ANY (ARRAY(SELECT id FROM c)) RETURNING %6$s""".formatted(table,
                MessageStatus.PENDING.code(), MessageStatus.FAILED.code(), MessageSql.parameters(this.types.size()),
                MessageStatus.PROCESSING.code(), MessageSql.qualified("u"));
    }

    @Override
    public boolean serialized() {
        return false;
    }

    @Override
    public List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            dialect.bindTime(ps, i++, now);
            for (String t : types) {
                ps.setString(i++, t);
            }
            ps.setInt(i++, limit);
            dialect.bindTime(ps, i++, now);
            dialect.bindTime(ps, i, now);
            List<MessageRecord> claimed = new ArrayList<>(limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(MessageRows.read(rs, dialect));
                }
            }
            claimed.sort(Comparator.comparingLong(MessageRecord::id));
            return claimed;
        }
    }
}
