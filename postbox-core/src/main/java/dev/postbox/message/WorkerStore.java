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
import java.util.Set;
import java.util.TreeMap;

/**
 * The worker's SQL on {@code biz_message_event}. Claims move only PENDING, or FAILED with
 * {@code next_retry_time <= now}, to PROCESSING (bumping {@code version}); every later write is fenced
 * by the version the claim produced ({@code WHERE id = ? AND version = ?}). Every Postbox write to the
 * table bumps the version, so an unchanged version means the row is exactly as this worker's claim left
 * it: a worker whose stuck event was recovered by another can no longer write it.
 */
final class WorkerStore {

    /** A failed attempt (or a release) to record. */
    record Failure(MessageRecord event, Kind kind, String reason, Instant nextRetry, int addRetries) {
    }

    enum Kind { RETRY, DEAD, CANCEL, RELEASE }

    private final Dialect dialect;
    private final String table;
    private final List<String> types;
    private final String typeList;
    private final String pgClaimSql;
    private final String pendingSql;
    private final String dueSql;
    private final String stuckSql;
    private final String failSql;
    private final String cancelSql;
    private final String touchSql;
    private final String succeedOneSql;

    WorkerStore(Dialect dialect, String table, Set<String> eventTypes) {
        this.dialect = dialect;
        this.table = table;
        this.types = List.copyOf(eventTypes);
        this.typeList = "e.event_type IN (" + String.join(", ", java.util.Collections.nCopies(types.size(), "?")) + ")";
        String claimSet = "event_status = 1, last_handle_time = ?, version = version + 1, update_time = ?";
        this.pgClaimSql = "WITH c AS (SELECT e.id FROM " + table + " e WHERE e.deleted = 0 AND e.event_status IN (0, 3)"
                + " AND (e.event_status = 0 OR e.next_retry_time <= ?) AND " + typeList
                + " ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED)"
                + " UPDATE " + table + " AS u SET " + claimSet + " WHERE u.id = ANY (ARRAY(SELECT id FROM c)) RETURNING "
                + qualified("u");
        boolean mysql = dialect == Dialect.MYSQL;
        // MySQL: ORDER BY the index's own columns, so the read stops after n rows instead of sorting the whole
        // backlog; PostgreSQL and H2 walk the id order of their indexes
        String order = mysql ? " ORDER BY e.next_retry_time, e.retry_count, e.id LIMIT ?" : " ORDER BY e.id LIMIT ?";
        if (mysql) {
            // MySQL: candidates by a plain, lock-free read, then locked by primary key with SKIP LOCKED. A
            // locking select over the status index would keep every row it examined locked until commit, the
            // other event types' rows it walked past too (InnoDB, READ COMMITTED), and other workers' claims
            // and outcome updates of those rows would wait for it.
            String head = "SELECT e.id FROM " + table + " e" + dialect.forceIndex("idx_status_retry_time");
            this.pendingSql = head + " WHERE e.deleted = 0 AND e.event_status = 0 AND " + typeList + order;
            this.dueSql = head + " WHERE e.deleted = 0 AND e.event_status = 3 AND e.next_retry_time <= ? AND "
                    + typeList + order;
        } else {
            String head = "SELECT " + MessageRows.COLUMNS + " FROM " + table + " e";
            this.pendingSql = head + " WHERE e.deleted = 0 AND e.event_status = 0 AND " + typeList + order;
            this.dueSql = head + " WHERE e.deleted = 0 AND e.event_status = 3 AND e.next_retry_time <= ? AND "
                    + typeList + order;
        }
        this.stuckSql = "SELECT " + MessageRows.COLUMNS + " FROM " + table + " e WHERE e.deleted = 0 AND e.event_status = 1"
                + " AND e.last_handle_time <= ? AND " + typeList + " ORDER BY e.id LIMIT ?";
        this.failSql = "UPDATE " + table + " SET event_status = ?, retry_count = retry_count + ?, next_retry_time = ?,"
                + " fail_reason = ?, version = version + 1, update_time = ? WHERE id = ? AND version = ?";
        this.cancelSql = "UPDATE " + table + " SET event_status = 4, next_retry_time = NULL, version = version + 1,"
                + " update_time = ? WHERE id = ? AND version = ? AND event_status = 3 AND retry_count >= max_retry_count";
        this.touchSql = "UPDATE " + table + " SET last_handle_time = ?, version = version + 1, update_time = ?"
                + " WHERE id = ? AND version = ?";
        this.succeedOneSql = "UPDATE " + table + " SET event_status = 2, success_time = ?, fail_reason = NULL,"
                + " next_retry_time = NULL, version = version + 1, update_time = ? WHERE id = ? AND version = ?";
    }

    /** Whether claims must not overlap within this JVM (no SKIP LOCKED: concurrent claimers would collide). */
    boolean serialized() {
        return dialect != Dialect.POSTGRESQL && dialect != Dialect.MYSQL;
    }

    /** Claims up to {@code limit} due events; returns them as PROCESSING with the claimed version, in id order. */
    List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            return claimPostgres(c, limit, now);
        }
        if (dialect == Dialect.MYSQL) {
            return claimMySql(c, limit, now);
        }
        TreeMap<Long, MessageRecord> candidates = new TreeMap<>();
        select(c, pendingSql, null, limit, candidates);
        select(c, dueSql, now, limit, candidates);
        List<MessageRecord> chosen = new ArrayList<>(candidates.values()).subList(0, Math.min(limit, candidates.size()));
        if (chosen.isEmpty()) {
            return List.of();
        }
        List<MessageRecord> claimed = new ArrayList<>(chosen.size());
        // no SKIP LOCKED: a conditional update per row on the version read; the per-row count says who won
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET event_status = 1, last_handle_time = ?,"
                + " version = version + 1, update_time = ? WHERE id = ? AND version = ?")) {
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
                    claimed.add(processing(chosen.get(i), now));
                }
            }
        }
        return claimed;
    }

    private List<MessageRecord> claimMySql(Connection c, int limit, Instant now) throws SQLException {
        java.util.TreeSet<Long> ids = new java.util.TreeSet<>();
        int want = 2 * limit; // twice the batch, so that workers claiming at the same moment do not all want the same rows
        query(c, pendingSql, null, want, rs -> ids.add(rs.getLong(1)));
        query(c, dueSql, now, want, rs -> ids.add(rs.getLong(1)));
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Long> wanted = new ArrayList<>(ids).subList(0, Math.min(want, ids.size()));
        StringBuilder lock = new StringBuilder("SELECT ").append(MessageRows.COLUMNS).append(" FROM ").append(table)
                .append(" e WHERE e.id IN (");
        for (int i = 0; i < wanted.size(); i++) {
            lock.append(i == 0 ? "?" : ", ?");
        }
        // re-checked under the lock: the plain read may be stale
        lock.append(") AND e.deleted = 0 AND (e.event_status = 0 OR (e.event_status = 3 AND e.next_retry_time <= ?))")
                .append(" ORDER BY e.id LIMIT ? FOR UPDATE SKIP LOCKED");
        List<MessageRecord> chosen = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(lock.toString())) {
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
        if (chosen.isEmpty()) {
            return List.of();
        }
        StringBuilder sql = new StringBuilder("UPDATE ").append(table)
                .append(" SET event_status = 1, last_handle_time = ?, version = version + 1, update_time = ? WHERE id IN (");
        for (int i = 0; i < chosen.size(); i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        try (PreparedStatement ps = c.prepareStatement(sql.append(')').toString())) {
            dialect.bindTime(ps, 1, now);
            dialect.bindTime(ps, 2, now);
            for (int i = 0; i < chosen.size(); i++) {
                ps.setLong(3 + i, chosen.get(i).id());
            }
            ps.executeUpdate();
        }
        List<MessageRecord> claimed = new ArrayList<>(chosen.size());
        chosen.forEach(r -> claimed.add(processing(r, now)));
        return claimed;
    }

    private List<MessageRecord> claimPostgres(Connection c, int limit, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(pgClaimSql)) {
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

    private void select(Connection c, String sql, Instant now, int limit, TreeMap<Long, MessageRecord> into)
            throws SQLException {
        query(c, sql, now, limit, rs -> {
            MessageRecord r = MessageRows.read(rs, dialect);
            into.put(r.id(), r);
        });
    }

    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    /** Runs one of the worker's selects: [time,] event types, limit; hands each row to {@code reader}. */
    private void query(Connection c, String sql, Instant now, int limit, RowReader reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (now != null) {
                dialect.bindTime(ps, i++, now);
            }
            for (String t : types) {
                ps.setString(i++, t);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    /** PROCESSING events of this worker's types whose last_handle_time is at or before {@code cutoff}. */
    List<MessageRecord> stuck(Connection c, Instant cutoff, int limit) throws SQLException {
        TreeMap<Long, MessageRecord> found = new TreeMap<>();
        select(c, stuckSql, cutoff, limit, found);
        return new ArrayList<>(found.values());
    }

    /** Records successes; returns how many were still this worker's. */
    int succeeded(Connection c, List<MessageRecord> events, Instant now) throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        if (dialect == Dialect.H2) {
            // H2 evaluates a long (id, version) IN list slowly; a batch of primary-key updates is faster
            int updated = 0;
            try (PreparedStatement ps = c.prepareStatement(succeedOneSql)) {
                for (MessageRecord e : events) {
                    dialect.bindTime(ps, 1, now);
                    dialect.bindTime(ps, 2, now);
                    ps.setLong(3, e.id());
                    ps.setInt(4, e.version());
                    ps.addBatch();
                }
                for (int n : ps.executeBatch()) {
                    updated += Math.max(n, 0);
                }
            }
            return updated;
        }
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET event_status = 2, success_time = ?,"
                + " fail_reason = NULL, next_retry_time = NULL, version = version + 1, update_time = ? WHERE id IN (");
        for (int i = 0; i < events.size(); i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        sql.append(") AND (id, version) IN (");
        for (int i = 0; i < events.size(); i++) {
            sql.append(i == 0 ? "(?, ?)" : ", (?, ?)");
        }
        try (PreparedStatement ps = c.prepareStatement(sql.append(')').toString())) {
            int i = 1;
            dialect.bindTime(ps, i++, now);
            dialect.bindTime(ps, i++, now);
            for (MessageRecord e : events) {
                ps.setLong(i++, e.id());
            }
            for (MessageRecord e : events) {
                ps.setLong(i++, e.id());
                ps.setInt(i++, e.version());
            }
            return ps.executeUpdate();
        }
    }

    /**
     * Records failures (FAILED with a retry time, DEAD, FAILED then CANCELLED, or a release); element i of
     * the result is 1 if failure i was recorded, 0 if the event was no longer this worker's.
     */
    int[] failed(Connection c, List<Failure> failures, Instant now) throws SQLException {
        int[] recorded = new int[failures.size()];
        if (failures.isEmpty()) {
            return recorded;
        }
        int[] counts;
        try (PreparedStatement ps = c.prepareStatement(failSql)) {
            for (Failure f : failures) {
                ps.setInt(1, f.kind() == Kind.DEAD ? MessageStatus.DEAD.code() : MessageStatus.FAILED.code());
                ps.setInt(2, f.addRetries());
                dialect.bindTime(ps, 3, f.nextRetry());
                ps.setString(4, f.reason());
                dialect.bindTime(ps, 5, now);
                ps.setLong(6, f.event().id());
                ps.setInt(7, f.event().version());
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        List<Integer> toCancel = new ArrayList<>();
        for (int i = 0; i < failures.size(); i++) {
            recorded[i] = counts[i] == 0 ? 0 : 1;
            if (recorded[i] == 1 && failures.get(i).kind() == Kind.CANCEL) {
                toCancel.add(i);
            }
        }
        if (!toCancel.isEmpty()) {
            // seed 000: FAILED -> CANCELLED once retry_count >= max_retry_count, on the version just written
            try (PreparedStatement ps = c.prepareStatement(cancelSql)) {
                for (int i : toCancel) {
                    dialect.bindTime(ps, 1, now);
                    ps.setLong(2, failures.get(i).event().id());
                    ps.setInt(3, failures.get(i).event().version() + 1);
                    ps.addBatch();
                }
                int[] cancelled = ps.executeBatch();
                for (int k = 0; k < toCancel.size(); k++) {
                    if (cancelled[k] == 0) {
                        throw new IllegalStateException("event " + failures.get(toCancel.get(k)).event().eventNo()
                                + " could not be cancelled after its last retry");
                    }
                }
            }
        }
        return recorded;
    }

    /**
     * Refreshes last_handle_time of events this worker still holds (so they are not recovered as stuck
     * while they wait in its batch); returns them with their new version, dropping those it lost.
     */
    List<MessageRecord> touch(Connection c, List<MessageRecord> events, Instant now) throws SQLException {
        if (events.isEmpty()) {
            return List.of();
        }
        int[] counts;
        try (PreparedStatement ps = c.prepareStatement(touchSql)) {
            for (MessageRecord e : events) {
                dialect.bindTime(ps, 1, now);
                dialect.bindTime(ps, 2, now);
                ps.setLong(3, e.id());
                ps.setInt(4, e.version());
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        List<MessageRecord> kept = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            if (counts[i] != 0) {
                MessageRecord e = events.get(i);
                kept.add(withVersion(e, e.version() + 1, now));
            }
        }
        return kept;
    }

    private static MessageRecord processing(MessageRecord r, Instant now) {
        return new MessageRecord(r.id(), r.eventNo(), r.eventType(), r.bizType(), r.bizId(), r.source(), r.payload(),
                MessageStatus.PROCESSING, r.retryCount(), r.maxRetryCount(), r.nextRetryTime(), now, r.successTime(),
                r.failReason(), r.traceId(), r.remark(), r.version() + 1, r.createTime(), now);
    }

    private static MessageRecord withVersion(MessageRecord r, int version, Instant now) {
        return new MessageRecord(r.id(), r.eventNo(), r.eventType(), r.bizType(), r.bizId(), r.source(), r.payload(),
                r.status(), r.retryCount(), r.maxRetryCount(), r.nextRetryTime(), now, r.successTime(),
                r.failReason(), r.traceId(), r.remark(), version, r.createTime(), now);
    }

    private static String qualified(String alias) {
        return java.util.Arrays.stream(MessageRows.COLUMNS.split(",")).map(col -> alias + "." + col.strip())
                .collect(java.util.stream.Collectors.joining(", "));
    }
}
