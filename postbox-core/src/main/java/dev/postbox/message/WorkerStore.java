package dev.postbox.message;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The worker's SQL on {@code biz_message_event}. Claims ({@link MessageClaim}, one way per database) move
 * only PENDING, or FAILED with {@code next_retry_time <= now}, to PROCESSING (bumping {@code version});
 * every later write is fenced by the version the claim produced ({@code WHERE id = ? AND version = ?}).
 * Every Postbox write to the table bumps the version, so an unchanged version means the row is exactly as
 * this worker's claim left it: a worker whose stuck event was recovered by another can no longer write it.
 */
final class WorkerStore {

    /** A failed attempt (or a release) to record. */
    record Failure(MessageRecord event, Kind kind, String reason, Instant nextRetry, int addRetries) {
    }

    enum Kind { RETRY, DEAD, CANCEL, RELEASE }

    /** The SET of a success; parameters: success_time, update_time. */
    private static final String SUCCEEDED_SET = """
            event_status = %d, success_time = ?, fail_reason = NULL, next_retry_time = NULL, version = version + 1,
            update_time = ?""".formatted(MessageStatus.SUCCEEDED.code());

    private final Dialect dialect;
    private final String table;
    private final List<String> types;
    private final MessageClaim claim;
    private final String stuckSql;
    private final String failSql;
    private final String cancelSql;
    private final String touchSql;
    private final String succeedOneSql;

    WorkerStore(Dialect dialect, String table, Set<String> eventTypes) {
        this.dialect = dialect;
        this.table = table;
        this.types = List.copyOf(eventTypes);
        this.claim = MessageClaim.of(dialect, table, types);
        this.stuckSql = """
                SELECT %s FROM %s e WHERE e.deleted = 0 AND e.event_status = %d
                   AND e.last_handle_time <= ? AND e.event_type IN (%s) ORDER BY e.id LIMIT ?""".formatted(
                MessageRows.COLUMNS, table, MessageStatus.PROCESSING.code(), MessageSql.parameters(types.size()));
        this.failSql = """
                UPDATE %s SET event_status = ?, retry_count = retry_count + ?, next_retry_time = ?,
                       fail_reason = ?, version = version + 1, update_time = ? WHERE id = ? AND version = ?""".formatted(table);
        this.cancelSql = """
                UPDATE %s SET event_status = %d, next_retry_time = NULL, version = version + 1,
                       update_time = ? WHERE id = ? AND version = ? AND event_status = %d AND retry_count >= max_retry_count"""
                .formatted(table, MessageStatus.CANCELLED.code(), MessageStatus.FAILED.code());
        this.touchSql = """
                UPDATE %s SET last_handle_time = ?, version = version + 1, update_time = ?
                 WHERE id = ? AND version = ?""".formatted(table);
        this.succeedOneSql = """
                UPDATE %s SET %s WHERE id = ? AND version = ?""".formatted(table, SUCCEEDED_SET);
    }

    /** Whether claims must not overlap within this JVM (concurrent claimers would collide on the same rows). */
    boolean serialized() {
        return claim.serialized();
    }

    /** Claims up to {@code limit} due events; returns them as PROCESSING with the claimed version, in id order. */
    List<MessageRecord> claim(Connection c, int limit, Instant now) throws SQLException {
        return claim.claim(c, limit, now);
    }

    /** PROCESSING events of this worker's types whose last_handle_time is at or before {@code cutoff}. */
    List<MessageRecord> stuck(Connection c, Instant cutoff, int limit) throws SQLException {
        List<MessageRecord> found = new ArrayList<>();
        MessageSql.query(c, dialect, stuckSql, cutoff, types, limit, rs -> found.add(MessageRows.read(rs, dialect)));
        return found;
    }

    /** Records successes; returns how many were still this worker's. */
    int succeeded(Connection c, List<MessageRecord> events, Instant now) throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        if (dialect.batchedPrimaryKeyUpdates()) {
            return succeededOneByOne(c, events, now);
        }
        String sql = """
                UPDATE %s SET %s WHERE id IN (%s) AND (id, version) IN (%s)""".formatted(table, SUCCEEDED_SET,
                MessageSql.parameters(events.size()), String.join(", ", Collections.nCopies(events.size(), "(?, ?)")));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
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

    private int succeededOneByOne(Connection c, List<MessageRecord> events, Instant now) throws SQLException {
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
            cancel(c, failures, toCancel, now);
        }
        return recorded;
    }

    /** Seed 000: FAILED -> CANCELLED once retry_count >= max_retry_count, on the version just written. */
    private void cancel(Connection c, List<Failure> failures, List<Integer> toCancel, Instant now) throws SQLException {
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
                kept.add(MessageSql.touched(events.get(i), now));
            }
        }
        return kept;
    }
}
