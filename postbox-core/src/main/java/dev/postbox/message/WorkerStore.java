package dev.postbox.message;

import dev.postbox.internal.poll.Fence;
import dev.postbox.internal.poll.VersionedClaim;
import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The worker's SQL on {@code biz_message_event}. Claims (the engine's {@link VersionedClaim}, one way per
 * database, on the spec {@link MessageSql#claimSpec} builds) move only PENDING, or FAILED with
 * {@code next_retry_time <= now}, to PROCESSING (bumping {@code version}); every later write is fenced by
 * the version the claim produced ({@link Fence}: {@code WHERE id = ? AND version = ?}). Every Postbox
 * write to the table bumps the version, so an unchanged version means the row is exactly as this worker's
 * claim left it: a worker whose stuck event was recovered by another can no longer write it. The fenced writes
 * find their row by primary key ({@code FORCE INDEX (PRIMARY)} on MySQL), whatever the statistics and the
 * connection's isolation: MariaDB runs the cancel's {@code WHERE id = ? ... AND event_status = ?} through the
 * {@code (event_status, id)} index while few rows are FAILED, which at REPEATABLE READ also locks the gap before
 * the entry, where other events' status changes go.
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
    private final List<String> types;
    private final VersionedClaim<MessageRecord> claim;
    private final String stuckSql;
    private final Fence<Failure> fail;
    private final Fence<Failure> cancel;
    private final Fence<MessageRecord> touch;
    private final Fence<MessageRecord> succeed;

    WorkerStore(Dialect dialect, String table, Set<String> eventTypes) {
        this.dialect = dialect;
        this.types = List.copyOf(eventTypes);
        this.claim = VersionedClaim.of(dialect, MessageSql.claimSpec(table, types));
        this.stuckSql = """
                SELECT %s FROM %s e WHERE e.deleted = 0 AND e.event_status = %d
                   AND e.last_handle_time <= ? AND e.event_type IN (%s) ORDER BY e.id LIMIT ?""".formatted(
                MessageRows.COLUMNS, table, MessageStatus.PROCESSING.code(), MessageSql.parameters(types.size()));
        String byId = table + dialect.forceIndex("PRIMARY");
        this.fail = new Fence<>(byId, """
                event_status = ?, retry_count = retry_count + ?, next_retry_time = ?, fail_reason = ?,
                version = version + 1, update_time = ?""", "version", null, f -> f.event().id(),
                f -> f.event().version());
        // on the version the failure just wrote
        this.cancel = new Fence<>(byId,
                "event_status = %d, next_retry_time = NULL, version = version + 1, update_time = ?"
                        .formatted(MessageStatus.CANCELLED.code()), "version",
                "event_status = %d AND retry_count >= max_retry_count".formatted(MessageStatus.FAILED.code()),
                f -> f.event().id(), f -> f.event().version() + 1);
        this.touch = new Fence<>(byId, "last_handle_time = ?, version = version + 1, update_time = ?", "version", null,
                MessageRecord::id, MessageRecord::version);
        this.succeed = new Fence<>(byId, SUCCEEDED_SET, "version", null, MessageRecord::id,
                MessageRecord::version);
    }

    /** The fenced writes as run (failure, cancel, touch, success), for the plan tests. */
    List<String> fencedStatements() {
        return List.of(fail.toString(), cancel.toString(), touch.toString(), succeed.toString());
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
        if (!dialect.batchedPrimaryKeyUpdates()) {
            return succeed.runTogether(c, events, ps -> bindTwice(ps, now));
        }
        int updated = 0;
        for (int n : succeed.run(c, events, (ps, e) -> bindTwice(ps, now))) {
            updated += Math.max(n, 0);
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
        int[] counts = fail.run(c, failures, (ps, f) -> {
            ps.setInt(1, f.kind() == Kind.DEAD ? MessageStatus.DEAD.code() : MessageStatus.FAILED.code());
            ps.setInt(2, f.addRetries());
            dialect.bindTime(ps, 3, f.nextRetry());
            ps.setString(4, f.reason());
            dialect.bindTime(ps, 5, now);
            return 6;
        });
        List<Failure> toCancel = new ArrayList<>();
        for (int i = 0; i < failures.size(); i++) {
            recorded[i] = Fence.held(counts[i]) ? 1 : 0;
            if (recorded[i] == 1 && failures.get(i).kind() == Kind.CANCEL) {
                toCancel.add(failures.get(i));
            }
        }
        if (!toCancel.isEmpty()) {
            cancel(c, toCancel, now);
        }
        return recorded;
    }

    /** Seed 000: FAILED -> CANCELLED once retry_count >= max_retry_count, on the version just written. */
    private void cancel(Connection c, List<Failure> toCancel, Instant now) throws SQLException {
        int[] cancelled = cancel.run(c, toCancel, (ps, f) -> {
            dialect.bindTime(ps, 1, now);
            return 2;
        });
        for (int k = 0; k < toCancel.size(); k++) {
            if (cancelled[k] == 0) {
                throw new IllegalStateException("event " + toCancel.get(k).event().eventNo()
                        + " could not be cancelled after its last retry");
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
        int[] counts = touch.run(c, events, (ps, e) -> bindTwice(ps, now));
        List<MessageRecord> kept = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            if (Fence.held(counts[i])) {
                kept.add(MessageSql.touched(events.get(i), now));
            }
        }
        return kept;
    }

    /** Binds {@code now} to parameters 1 and 2 (handled or succeeded, and updated); the id's index. */
    private int bindTwice(PreparedStatement ps, Instant now) throws SQLException {
        dialect.bindTime(ps, 1, now);
        dialect.bindTime(ps, 2, now);
        return 3;
    }
}
