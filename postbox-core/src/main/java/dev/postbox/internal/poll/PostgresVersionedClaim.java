package dev.postbox.internal.poll;

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
 * concurrent claimers take different rows and never wait for each other.
 */
final class PostgresVersionedClaim<R> implements VersionedClaim<R> {

    private final Dialect dialect;
    private final ClaimSpec<R, ?> spec;
    private final String sql;

    PostgresVersionedClaim(Dialect dialect, ClaimSpec<R, ?> spec) {
        this.dialect = dialect;
        this.spec = spec;
        ClaimSpec.Statuses<?> s = spec.statuses();
        String due = "e.%1$s IN (%2$d, %3$d) AND (e.%1$s = %2$d OR e.%4$s <= ?)".formatted(s.column(), s.readyCode(),
                s.dueCode(), spec.columns().due());
        this.sql = """
                WITH c AS (SELECT e.id FROM %1$s e WHERE %2$s
                          ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED)
                UPDATE %1$s AS u SET %3$s
                 WHERE u.id = ANY (ARRAY(SELECT id FROM c)) RETURNING %4$s""".formatted(spec.table(),
                ClaimSpec.and(spec.filter().live(), due, spec.filter().sql()), spec.claimSet(),
                spec.rows().qualified("u"));
    }

    @Override
    public boolean serialized() {
        return false;
    }

    @Override
    public List<R> claim(Connection c, int limit, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            dialect.bindTime(ps, i++, now);
            for (String a : spec.filter().args()) {
                ps.setString(i++, a);
            }
            ps.setInt(i++, limit);
            ClaimSql.bindStamps(ps, dialect, i, spec.columns().stamps(), now);
            List<R> claimed = new ArrayList<>(limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(spec.rows().mapper().read(rs, dialect));
                }
            }
            claimed.sort(Comparator.comparingLong(spec.rows().id()));
            return claimed;
        }
    }
}
