package dev.postbox.internal.poll;

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
 * keep every row it examined locked until commit, the rows of other claimers' filters it walked past too
 * (InnoDB, READ COMMITTED), and other claims and fenced writes of those rows would wait for it.
 */
final class MySqlVersionedClaim<R> implements VersionedClaim<R> {

    private final Dialect dialect;
    private final ClaimSpec<R, ?> spec;
    private final String readySql;
    private final String dueSql;

    MySqlVersionedClaim(Dialect dialect, ClaimSpec<R, ?> spec) {
        this.dialect = dialect;
        this.spec = spec;
        this.readySql = candidates(spec.readyCondition());
        this.dueSql = candidates(spec.dueCondition());
    }

    /** The ids of candidates matching {@code status}, in the order of the spec's index. */
    private String candidates(String status) {
        // ORDER BY the index's own columns, so the read stops after n rows instead of sorting the whole backlog
        return """
                SELECT e.id FROM %s e%s WHERE %s
                 ORDER BY %s LIMIT ?""".formatted(spec.table(), dialect.forceIndex(spec.index().name()),
                ClaimSpec.and(spec.filter().live(), status, spec.filter().sql()), spec.index().orderBy());
    }

    @Override
    public boolean serialized() {
        return false;
    }

    @Override
    public List<R> claim(Connection c, int limit, Instant now) throws SQLException {
        TreeSet<Long> ids = new TreeSet<>();
        int want = 2 * limit; // twice the batch, so that claimers at the same moment do not all want the same rows
        List<String> args = spec.filter().args();
        ClaimSql.query(c, dialect, readySql, null, args, want, rs -> ids.add(rs.getLong(1)));
        ClaimSql.query(c, dialect, dueSql, now, args, want, rs -> ids.add(rs.getLong(1)));
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Long> wanted = new ArrayList<>(ids).subList(0, Math.min(want, ids.size()));
        List<R> chosen = lock(c, wanted, limit, now);
        if (chosen.isEmpty()) {
            return List.of();
        }
        String update = "UPDATE %s SET %s WHERE id IN (%s)".formatted(spec.table(), spec.claimSet(),
                ClaimSpec.parameters(chosen.size()));
        try (PreparedStatement ps = c.prepareStatement(update)) {
            int i = ClaimSql.bindStamps(ps, dialect, 1, spec.columns().stamps(), now);
            for (R r : chosen) {
                ps.setLong(i++, spec.rows().id().applyAsLong(r));
            }
            ps.executeUpdate();
        }
        List<R> claimed = new ArrayList<>(chosen.size());
        chosen.forEach(r -> claimed.add(spec.rows().claimed().claimed(r, now)));
        return claimed;
    }

    /** Locks up to {@code limit} of {@code wanted} that are still due, skipping those another claim holds. */
    private List<R> lock(Connection c, List<Long> wanted, int limit, Instant now) throws SQLException {
        String still = "(" + spec.readyCondition() + " OR (" + spec.dueCondition() + "))";
        // by primary key whatever the statistics say: through a status index the locking read would walk and
        // lock other rows of those statuses (and, at REPEATABLE READ, the gaps between them) instead of these ids
        String sql = """
                SELECT %s FROM %s e%s WHERE %s
                 ORDER BY e.id LIMIT ? FOR UPDATE SKIP LOCKED""".formatted(spec.rows().columns(), spec.table(),
                dialect.forceIndex("PRIMARY"), ClaimSpec.and("e.id IN (" + ClaimSpec.parameters(wanted.size()) + ")",
                        spec.filter().live(), still));
        List<R> chosen = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (Long id : wanted) {
                ps.setLong(i++, id);
            }
            dialect.bindTime(ps, i++, now);
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    chosen.add(spec.rows().mapper().read(rs, dialect));
                }
            }
        }
        return chosen;
    }
}
