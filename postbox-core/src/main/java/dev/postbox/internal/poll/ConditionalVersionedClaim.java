package dev.postbox.internal.poll;

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
final class ConditionalVersionedClaim<R> implements VersionedClaim<R> {

    private final Dialect dialect;
    private final ClaimSpec<R, ?> spec;
    private final String readySql;
    private final String dueSql;
    private final String claimSql;

    ConditionalVersionedClaim(Dialect dialect, ClaimSpec<R, ?> spec) {
        this.dialect = dialect;
        this.spec = spec;
        this.readySql = candidates(spec.readyCondition());
        this.dueSql = candidates(spec.dueCondition());
        this.claimSql = "UPDATE %s SET %s WHERE id = ? AND %s = ?".formatted(spec.table(), spec.claimSet(),
                spec.columns().version());
    }

    /** Candidates matching {@code status}, in id order. */
    private String candidates(String status) {
        return "SELECT %s FROM %s e WHERE %s ORDER BY e.id LIMIT ?".formatted(spec.rows().columns(), spec.table(),
                ClaimSpec.and(spec.filter().live(), status, spec.filter().sql()));
    }

    @Override
    public boolean serialized() {
        return true;
    }

    @Override
    public List<R> claim(Connection c, int limit, Instant now) throws SQLException {
        TreeMap<Long, R> candidates = new TreeMap<>();
        ClaimSql.RowReader collect = rs -> {
            R r = spec.rows().mapper().read(rs, dialect);
            candidates.put(spec.rows().id().applyAsLong(r), r);
        };
        List<String> args = spec.filter().args();
        ClaimSql.query(c, dialect, readySql, null, args, limit, collect);
        ClaimSql.query(c, dialect, dueSql, now, args, limit, collect);
        List<R> chosen = new ArrayList<>(candidates.values()).subList(0, Math.min(limit, candidates.size()));
        if (chosen.isEmpty()) {
            return List.of();
        }
        List<R> claimed = new ArrayList<>(chosen.size());
        try (PreparedStatement ps = c.prepareStatement(claimSql)) {
            for (R r : chosen) {
                int i = ClaimSql.bindStamps(ps, dialect, 1, spec.columns().stamps(), now);
                ps.setLong(i++, spec.rows().id().applyAsLong(r));
                ps.setInt(i, spec.rows().version().applyAsInt(r));
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < chosen.size(); i++) {
                if (counts[i] == 1) {
                    claimed.add(spec.rows().claimed().claimed(chosen.get(i), now));
                }
            }
        }
        return claimed;
    }
}
