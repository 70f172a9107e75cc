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
import java.util.TreeMap;

/** Reads claim candidates with one of {@link ClaimSql}'s selects, merging them in id order. */
final class Candidates {

    private Candidates() {
    }

    /** Reads one result row. */
    @FunctionalInterface
    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    /** Runs {@code sql} with ({@code now},) {@code limit} and adds its rows to {@code into}. */
    static void select(Connection c, Dialect d, String sql, Instant now, int limit, TreeMap<Long, OutboxRecord> into)
            throws SQLException {
        select(c, d, sql, now, limit, rs -> {
            OutboxRecord r = OutboxRows.read(rs, d);
            into.put(r.id(), r);
        });
    }

    /** Runs {@code sql} with ({@code now},) {@code limit} and hands every row to {@code reader}. */
    static void select(Connection c, Dialect d, String sql, Instant now, int limit, RowReader reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (now != null) {
                d.bindTime(ps, i++, now);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    /** The first {@code limit} candidates of all three selects, in id order. */
    static List<OutboxRecord> all(Connection c, Dialect d, ClaimSql s, String suffix, Instant now,
                                  Instant takeoverBefore, int limit) throws SQLException {
        TreeMap<Long, OutboxRecord> candidates = new TreeMap<>();
        select(c, d, s.pendingSelect + suffix, null, limit, candidates);
        select(c, d, s.dueSelect + suffix, now, limit, candidates);
        select(c, d, s.expiredSelect + suffix, takeoverBefore, limit, candidates);
        List<OutboxRecord> all = new ArrayList<>(candidates.values());
        return all.size() > limit ? all.subList(0, limit) : all;
    }
}
