package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Claims, in the claim's transaction, the events that follow the heads just claimed in their aggregates,
 * so that an aggregate with a backlog moves by a run of events per cycle instead of one.
 * <p>
 * Once this relay holds a head, no other relay can claim any later event of that aggregate (the order
 * guard sees the head unfinished), so the followers are this relay's to take. A run is contiguous: it
 * stops before the first later unfinished event that is not claimable now (a failed event not yet due, a
 * dead one, a lease still held; soft-deleted rows are skipped), exactly where the order guard would stop. The rows
 * are read, locked by primary key and checked unchanged (version), then leased with one UPDATE. The relay
 * publishes a run in waves: the n-th event of an aggregate only after its (n-1)-th was published.
 */
final class Followers {

    private final Dialect dialect;
    private final ClaimSql s;
    /**
     * What the walk needs of a later row; the full row is read when it is locked. (Wide columns would make
     * MariaDB materialize the UNION in an on-disk temporary table: 36 ms instead of 8 for 125 heads.)
     */
    private static final String NARROW = "id, aggregate_type, aggregate_id, publish_status, next_retry_time, lock_until, version, deleted";

    private final String branch;
    private final String lateralSql;

    /**
     * @param aggregateHint index hint that makes MySQL walk {@code (aggregate_type, aggregate_id)} (whose
     *                      entries are in id order) rather than the status index, which it would sort
     */
    Followers(Dialect dialect, ClaimSql s, Set<String> unorderedTopics, String aggregateHint) {
        this.dialect = dialect;
        this.s = s;
        String topicFilter = unorderedTopics.isEmpty() ? ""
                : " AND (topic IS NULL OR topic NOT IN (%s))".formatted(ClaimSql.topicList(unorderedTopics));
        // every unfinished row after the head, in id order: the walk needs to see the ones that stop a run
        this.branch = """
                (SELECT %s FROM %s%s\
                 WHERE aggregate_type = ? AND aggregate_id = ? AND id > ? AND publish_status IN (%s)%s\
                 ORDER BY id LIMIT ?)"""
                .formatted(NARROW, s.table, aggregateHint, StatusCodes.BLOCKING_LIST, topicFilter);
        this.lateralSql = """
                SELECT x.* FROM unnest(?::varchar[], ?::varchar[], ?::bigint[]) AS h(t, a, i)\
                 CROSS JOIN LATERAL (SELECT %s FROM %s\
                 WHERE aggregate_type = h.t AND aggregate_id = h.a AND id > h.i AND publish_status IN (%s)%s\
                 ORDER BY id LIMIT ?) x"""
                .formatted(NARROW, s.table, StatusCodes.BLOCKING_LIST, topicFilter);
    }

    /**
     * Claims up to {@code room} followers of {@code heads} (ordered-topic heads only), at most
     * {@code room / heads} per aggregate; returns them as leased.
     */
    List<OutboxRecord> claim(Connection c, List<OutboxRecord> heads, Set<String> unorderedTopics, int room,
                             String owner, Instant now, Instant takeoverBefore, Instant lockUntil) throws SQLException {
        return claim(c, heads, unorderedTopics, room, owner, now, takeoverBefore, lockUntil, new Takeovers());
    }

    /** As above, adding every takeover (a follower whose lease had expired) to {@code takeovers}. */
    List<OutboxRecord> claim(Connection c, List<OutboxRecord> heads, Set<String> unorderedTopics, int room,
                             String owner, Instant now, Instant takeoverBefore, Instant lockUntil, Takeovers takeovers)
            throws SQLException {
        List<OutboxRecord> ordered = heads.stream().filter(h -> isOrdered(h, unorderedTopics)).toList();
        if (ordered.isEmpty() || room <= 0) {
            return List.of();
        }
        int perAggregate = room / ordered.size();
        if (perAggregate == 0) {
            ordered = ordered.subList(0, room);
            perAggregate = 1;
        }
        List<Follower> candidates = read(c, ordered, perAggregate, now, takeoverBefore);
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<OutboxRecord> locked = lockUnchanged(c, candidates);
        if (locked.isEmpty()) {
            return List.of();
        }
        lease(c, locked, owner, now, lockUntil);
        List<OutboxRecord> leased = new ArrayList<>(locked.size());
        for (OutboxRecord r : locked) {
            OutboxRecord l = ClaimSql.leased(r, owner, now, lockUntil);
            leased.add(l);
            takeovers.ifExpired(r, l);
        }
        return leased;
    }

    private record Follower(long id, int version, String aggregate) {
    }

    /** A later unfinished row as read; a soft-deleted one is never claimable and is skipped. */
    private record Later(long id, int status, Instant nextRetry, Instant lockUntil, int version, boolean deleted) {

        /** The claim's own condition ({@link ClaimSql#claimable}). */
        boolean claimable(Instant now, Instant takeoverBefore) {
            return !deleted && switch (OutboxStatus.of(status)) {
                case PENDING -> true;
                case FAILED -> nextRetry != null && !nextRetry.isAfter(now);
                case PUBLISHING -> lockUntil != null && !lockUntil.isAfter(takeoverBefore);
                default -> false;
            };
        }
    }

    /** The claimable prefix of each head's later unfinished events. */
    private List<Follower> read(Connection c, List<OutboxRecord> heads, int perAggregate, Instant now,
                                Instant takeoverBefore) throws SQLException {
        Map<String, List<Later>> byAggregate = new HashMap<>();
        try (PreparedStatement ps = dialect.idArrays() ? lateral(c, heads, perAggregate) : union(c, heads, perAggregate);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byAggregate.computeIfAbsent(key(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                        k -> new ArrayList<>()).add(new Later(rs.getLong("id"), rs.getInt("publish_status"),
                        dialect.readTime(rs, "next_retry_time"), dialect.readTime(rs, "lock_until"), rs.getInt("version"),
                        rs.getInt("deleted") != 0));
            }
        }
        List<Follower> run = new ArrayList<>();
        for (OutboxRecord h : heads) {
            String key = key(h.aggregateType(), h.aggregateId());
            List<Later> later = byAggregate.getOrDefault(key, new ArrayList<>());
            later.sort(java.util.Comparator.comparingLong(Later::id));
            for (Later l : later) {
                if (l.deleted()) {
                    continue; // soft-deleted: never published, and does not hold the aggregate (see ClaimSql)
                }
                if (!l.claimable(now, takeoverBefore)) {
                    break;
                }
                run.add(new Follower(l.id(), l.version(), key));
            }
        }
        return run;
    }

    /** With {@link Dialect#idArrays()} (PostgreSQL): one plan for any number of heads, each a LIMIT-ed walk of the unfinished-aggregate index. */
    private PreparedStatement lateral(Connection c, List<OutboxRecord> heads, int perAggregate) throws SQLException {
        PreparedStatement ps = c.prepareStatement(lateralSql);
        try {
            ps.setArray(1, c.createArrayOf("varchar", heads.stream().map(OutboxRecord::aggregateType).toArray()));
            ps.setArray(2, c.createArrayOf("varchar", heads.stream().map(OutboxRecord::aggregateId).toArray()));
            ps.setArray(3, c.createArrayOf("bigint", heads.stream().map(OutboxRecord::id).toArray()));
            ps.setInt(4, perAggregate);
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** Elsewhere (MariaDB has no LATERAL): one parenthesized, LIMIT-ed branch per head. */
    private PreparedStatement union(Connection c, List<OutboxRecord> heads, int perAggregate) throws SQLException {
        PreparedStatement ps = c.prepareStatement(heads.stream().map(h -> branch).collect(Collectors.joining(" UNION ALL ")));
        try {
            int i = 1;
            for (OutboxRecord h : heads) {
                ps.setString(i++, h.aggregateType());
                ps.setString(i++, h.aggregateId());
                ps.setLong(i++, h.id());
                ps.setInt(i++, perAggregate);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /**
     * Locks and reads the candidates, keeping per aggregate the prefix that nobody changed since it was
     * read (an admin action in between bumps the version).
     */
    private List<OutboxRecord> lockUnchanged(Connection c, List<Follower> candidates) throws SQLException {
        Map<Long, OutboxRecord> rows = new HashMap<>();
        List<Long> ids = candidates.stream().map(Follower::id).toList();
        String sql = "SELECT %s FROM %s WHERE %s FOR UPDATE".formatted(OutboxRows.COLUMNS, s.table, idIn(ids.size()));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindIds(c, ps, 1, ids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OutboxRecord r = OutboxRows.read(rs, dialect);
                    rows.put(r.id(), r);
                }
            }
        }
        List<OutboxRecord> kept = new ArrayList<>(candidates.size());
        java.util.Set<String> broken = new java.util.HashSet<>();
        for (Follower f : candidates) {
            if (broken.contains(f.aggregate())) {
                continue;
            }
            OutboxRecord r = rows.get(f.id());
            if (r == null || r.version() != f.version()) {
                broken.add(f.aggregate());
                continue;
            }
            kept.add(r);
        }
        return kept;
    }

    private void lease(Connection c, List<OutboxRecord> rows, String owner, Instant now, Instant lockUntil)
            throws SQLException {
        String sql = "UPDATE %s SET %s WHERE %s".formatted(s.table, s.leaseSet, idIn(rows.size()));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, ClaimSql.LEASE_EXPIRED);
            ps.setString(2, owner);
            dialect.bindTime(ps, 3, lockUntil);
            dialect.bindTime(ps, 4, now);
            dialect.bindTime(ps, 5, now);
            bindIds(c, ps, 6, rows.stream().map(OutboxRecord::id).toList());
            ps.executeUpdate();
        }
    }

    /** With {@link Dialect#idArrays()}: one array parameter (cheap to plan); elsewhere an IN list. */
    private String idIn(int n) {
        return dialect.idArrays() ? "id = ANY (?)" : "id IN (%s)".formatted(ClaimSql.placeholders(n));
    }

    private void bindIds(Connection c, PreparedStatement ps, int first, List<Long> ids) throws SQLException {
        if (dialect.idArrays()) {
            ps.setArray(first, c.createArrayOf("bigint", ids.toArray()));
            return;
        }
        for (int i = 0; i < ids.size(); i++) {
            ps.setLong(first + i, ids.get(i));
        }
    }

    static String key(String aggregateType, String aggregateId) {
        return aggregateType + '\u0000' + aggregateId;
    }

    static boolean isOrdered(OutboxRecord r, Set<String> unorderedTopics) {
        return r.topic() == null || !unorderedTopics.contains(r.topic());
    }
}
