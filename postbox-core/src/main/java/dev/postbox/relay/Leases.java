package dev.postbox.relay;

import dev.postbox.jdbc.Dialect;
import dev.postbox.outbox.OutboxRecord;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The relay's writes after a claim. Each is fenced: it changes a row only while this relay still holds
 * the lease it claimed ({@code locked_by = owner AND version = claimed version}, still PUBLISHING),
 * so a relay whose lease expired and was taken over can never overwrite the new owner's result.
 * <p>
 * Each finds its rows by primary key ({@code FORCE INDEX (PRIMARY)} on MySQL), so that it reads and locks its own
 * rows only, whatever the statistics and the connection's isolation: with few rows PUBLISHING, MariaDB runs
 * {@code WHERE id = ? AND publish_status = ?} through the {@code (publish_status, id)} index, which at REPEATABLE
 * READ also locks the gap before the entry until commit; for the first event in flight that is where every new
 * PENDING event goes, and the application's writes and other relays' claims would wait for the recording.
 */
final class Leases {

    /** A failure to record: the new status, the reason and, for a retry, when. */
    record Failure(OutboxRecord event, boolean dead, String reason, Instant nextRetry, int addRetries) {
    }

    private final Dialect dialect;
    private final String table;
    /** The table with its primary key's index named where the dialect takes hints: the UPDATE target. */
    private final String byId;
    private final String failSql;
    private final String releaseSql;

    Leases(Dialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        this.byId = table + dialect.forceIndex("PRIMARY");
        this.failSql = """
                UPDATE %s SET publish_status = ?, retry_count = retry_count + ?,\
                 next_retry_time = ?, fail_reason = ?, locked_by = NULL, lock_until = NULL, update_time = ?%s"""
                .formatted(byId, FENCE);
        // a given-back lease was not lost: the takeover mark (see Relay, which counts takeovers by it) goes
        this.releaseSql = """
                UPDATE %s SET publish_status = CASE WHEN retry_count > 0 THEN %d ELSE %d END,\
                 fail_reason = CASE WHEN fail_reason = %s THEN NULL ELSE fail_reason END,\
                 next_retry_time = CASE WHEN retry_count > 0 THEN ? ELSE NULL END, locked_by = NULL,\
                 lock_until = NULL, update_time = ?%s"""
                .formatted(byId, StatusCodes.FAILED, StatusCodes.PENDING, ClaimSql.quoted(ClaimSql.LEASE_EXPIRED), FENCE);
    }

    /**
     * The statements of a failure (parameters: status, added retries, next retry, reason, now, then the fence's) and
     * of a lease given back (now, now, then the fence's), as run; for the plan tests.
     */
    List<String> rowStatements() {
        return List.of(failSql, releaseSql);
    }

    /** The fence of a single-row write; parameters: id, version, owner. */
    private static final String FENCE = " WHERE id = ? AND version = ? AND locked_by = ? AND publish_status = %d"
            .formatted(StatusCodes.PUBLISHING);

    /** Marks {@code events} PUBLISHED in one statement; returns how many this relay still held. */
    int published(Connection c, List<OutboxRecord> events, String owner, Instant now) throws SQLException {
        return fencedUpdate(c, events, owner, """
                publish_status = %d, published_time = ?, fail_reason = NULL,\
                 next_retry_time = NULL, locked_by = NULL, lock_until = NULL, update_time = ?"""
                .formatted(StatusCodes.PUBLISHED), now, now);
    }

    /**
     * Runs {@code UPDATE ... SET set} (two time parameters, {@code first} and {@code second}) on the rows of
     * {@code events} that this relay still holds at the version it claimed; returns how many those were.
     * With {@link Dialect#idArrays()} (PostgreSQL): the (id, version) pairs as two arrays joined by primary
     * key, four parameters whatever the batch size, so planning stays cheap with the relay's custom plans.
     * Its status condition is written {@code publish_status + 0} so that no index can serve it: every row
     * a drain has recorded leaves a dead entry in the status indexes until a vacuum, and a planner without
     * fresh statistics that reaches the PUBLISHING rows through such an index reads all of them (50,500
     * entries and 4,049 heap pages to record 500 events, 100,000 into a drain) where the primary key reads
     * the 500.
     * With {@link Dialect#batchedPrimaryKeyUpdates()} (H2, which evaluates a long (id, version) IN list
     * slowly): a JDBC batch of single-row updates. Otherwise (MySQL): one IN list.
     */
    private int fencedUpdate(Connection c, List<OutboxRecord> events, String owner, String set, Instant first,
                             Instant second) throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        if (dialect.batchedPrimaryKeyUpdates()) {
            return fencedBatch(c, "UPDATE %s SET %s%s".formatted(byId, set, FENCE), events, owner, first, second);
        }
        if (dialect.idArrays()) {
            return fencedArrays(c, events, owner, set, first, second);
        }
        String sql = inListUpdateSql(set, events.size());
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            dialect.bindTime(ps, i++, first);
            dialect.bindTime(ps, i++, second);
            for (OutboxRecord e : events) {
                ps.setLong(i++, e.id());
            }
            ps.setString(i++, owner);
            for (OutboxRecord e : events) {
                ps.setLong(i++, e.id());
                ps.setInt(i++, e.version());
            }
            return ps.executeUpdate();
        }
    }

    /**
     * {@link #fencedUpdate}'s statement for {@code n} events elsewhere (MySQL); parameters: the two times, the
     * ids, the owner, the (id, version) pairs. By primary key: on a table whose statistics InnoDB has not
     * sampled since it was filled, MariaDB walks the (status, lock_until) index over every relay's in-flight
     * rows instead.
     */
    String inListUpdateSql(String set, int n) {
        return """
                UPDATE %s SET %s WHERE id IN (%s) AND locked_by = ? AND publish_status = %d\
                 AND (id, version) IN (%s)"""
                .formatted(byId, set, ClaimSql.placeholders(n), StatusCodes.PUBLISHING,
                        String.join(", ", java.util.Collections.nCopies(n, "(?, ?)")));
    }

    /** {@link #fencedUpdate} as one statement joining the (id, version) arrays by primary key. */
    private int fencedArrays(Connection c, List<OutboxRecord> events, String owner, String set, Instant first,
                             Instant second) throws SQLException {
        String sql = """
                UPDATE %s AS t SET %s FROM unnest(?::bigint[], ?::int[]) AS v(id, version)\
                 WHERE t.id = v.id AND t.version = v.version AND t.locked_by = ? AND t.publish_status + 0 = %d"""
                .formatted(table, set, StatusCodes.PUBLISHING);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            dialect.bindTime(ps, 1, first);
            dialect.bindTime(ps, 2, second);
            ps.setArray(3, c.createArrayOf("bigint", events.stream().map(OutboxRecord::id).toArray()));
            ps.setArray(4, c.createArrayOf("integer", events.stream().map(OutboxRecord::version).toArray()));
            ps.setString(5, owner);
            return ps.executeUpdate();
        }
    }

    /**
     * Runs {@code sql} (parameters: first, second, id, version, owner) once per event in one JDBC batch;
     * returns how many rows this relay still held.
     */
    private int fencedBatch(Connection c, String sql, List<OutboxRecord> events, String owner, Instant first,
                            Instant second) throws SQLException {
        int updated = 0;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (OutboxRecord e : events) {
                dialect.bindTime(ps, 1, first);
                dialect.bindTime(ps, 2, second);
                ps.setLong(3, e.id());
                ps.setInt(4, e.version());
                ps.setString(5, owner);
                ps.addBatch();
            }
            for (int n : ps.executeBatch()) {
                updated += Math.max(n, 0);
            }
        }
        return updated;
    }

    /** Records failures (FAILED with a retry time, or DEAD) in one JDBC batch; returns per-row counts. */
    int[] failed(Connection c, List<Failure> failures, String owner, Instant now) throws SQLException {
        if (failures.isEmpty()) {
            return new int[0];
        }
        try (PreparedStatement ps = c.prepareStatement(failSql)) {
            for (Failure f : failures) {
                ps.setInt(1, f.dead() ? StatusCodes.DEAD : StatusCodes.FAILED);
                ps.setInt(2, f.addRetries());
                dialect.bindTime(ps, 3, f.dead() ? null : f.nextRetry());
                ps.setString(4, f.reason());
                dialect.bindTime(ps, 5, now);
                ps.setLong(6, f.event().id());
                ps.setInt(7, f.event().version());
                ps.setString(8, owner);
                ps.addBatch();
            }
            return ps.executeBatch();
        }
    }

    /**
     * Extends the leases of {@code events} (the batch in flight) to {@code lockUntil}, fenced like every
     * other write; returns how many this relay still held. One statement on PostgreSQL and MySQL, one JDBC
     * batch on H2.
     */
    int renew(Connection c, List<OutboxRecord> events, String owner, Instant lockUntil, Instant now) throws SQLException {
        return fencedUpdate(c, events, owner, "lock_until = ?, update_time = ?", lockUntil, now);
    }

    /** Gives leases back unpublished (graceful shutdown): PENDING again, or FAILED due now after failures. */
    int release(Connection c, List<OutboxRecord> events, String owner, Instant now) throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        return fencedBatch(c, releaseSql, events, owner, now, now);
    }
}
