package dev.postbox.relay;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static dev.postbox.relay.StatusCodes.FAILED;
import static dev.postbox.relay.StatusCodes.PENDING;
import static dev.postbox.relay.StatusCodes.PUBLISHING;

/**
 * The SQL fragments every claim strategy shares: which rows are claimable, the per-aggregate order
 * guard, and the SET list that turns a claimable row into a lease. Built once per relay.
 * <p>
 * User text (the unordered topics) is only ever an argument of {@link String#formatted}, never part of a
 * format string, and is quoted by {@link #quoted}.
 */
final class ClaimSql {

    /**
     * fail_reason recorded when a lease expired: the crashed-publisher recovery of seed 000. Unlike seed
     * 000 the takeover is counted in {@code lease_expiries}, not as a failed attempt in {@code retry_count}.
     */
    static final String LEASE_EXPIRED = "lease expired before the relay recorded an outcome; publishing again";

    final String table;
    final String columns = OutboxRows.COLUMNS;
    /**
     * Claimable rows of alias e; two time parameters: now (retries due) and the takeover cutoff (leases
     * that expired before it may be taken over; normally now, far in the past while the relay's clock is
     * too far from the database's to judge other relays' leases).
     */
    final String claimable;
    /** " AND <order guard on alias e>" or "" in unordered mode. */
    final String orderGuard;
    /** The SET list of the claim; parameters: reason, owner, lock_until, now (last_publish_time), now. */
    final String leaseSet;

    /**
     * Pending, due and expired candidates in their index order, from " FROM" on: prefixed by the selected
     * columns ({@link #select}); each takes (limit) or (now, limit).
     */
    final String pendingFrom;
    final String dueFrom;
    final String expiredFrom;
    /** The three selects of whole rows. */
    final String pendingSelect;
    final String dueSelect;
    final String expiredSelect;

    ClaimSql(String table, boolean ordered, Set<String> unorderedTopics) {
        this(table, ordered, unorderedTopics, Probes.FIRST_UNFINISHED, Hints.NONE);
    }

    /**
     * Index hints (MySQL's {@code FORCE INDEX (...)}, else empty) that pin each statement to the index its
     * shape was written for, so that missing or stale statistics (a table filled seconds ago, before InnoDB
     * sampled it) cannot turn a claim into a scan and sort of every row of a status.
     *
     * @param pending the pending select: {@code (status, id)}
     * @param due     the due select: {@code (status, next_retry_time, retry_count)}
     * @param expired the expired select: {@code (status, lock_until)}
     * @param probe   the guard's probes: {@code (aggregate, status, deleted, id)}; the planner may otherwise
     *                pick a status index and walk every in-flight or dead row per candidate
     */
    record Hints(String pending, String due, String expired, String probe) {
        static final Hints NONE = new Hints("", "", "", "");
    }

    /** How the order guard looks for an earlier unfinished event of the same aggregate. */
    enum Probes {
        /**
         * The aggregate's first unfinished id ({@code publish_status IN} the blocking statuses, {@code ORDER BY
         * id LIMIT 1}: one entry of PostgreSQL's partial index, which holds exactly those rows) must not be
         * below e.id. A scalar subquery with a LIMIT is never turned into a join, so the guard runs only for
         * the candidates the claim reaches before its own LIMIT; a NOT EXISTS may be planned as an anti-join
         * that checks every pending row first (what PostgreSQL does on a table it has no statistics for).
         */
        FIRST_UNFINISHED,
        /** One NOT EXISTS per blocking status over {@code (aggregate, status, id)} with {@code id < e.id} as its range (H2). */
        NOT_EXISTS_PER_STATUS,
        /**
         * Per blocking status, the aggregate's lowest id in that status ({@code ORDER BY id LIMIT 1}, one index
         * entry read) must not be below e.id. MariaDB does not use {@code p.id < e.id} of a NOT EXISTS as a
         * range bound and reads every pending row of the aggregate per candidate instead.
         */
        FIRST_ID_PER_STATUS
    }

    /**
     * @param probes the form of the order guard; the per-status forms are for planners (MySQL, H2) that
     *               cannot use an IN list in the middle of the (aggregate, status, id) index
     * @param hints  index hints per statement ({@link Hints#NONE} where the dialect has none)
     */
    ClaimSql(String table, boolean ordered, Set<String> unorderedTopics, Probes probes, Hints hints) {
        this.table = table;
        this.claimable = """
                e.deleted = 0 AND e.publish_status IN (%s) AND (e.publish_status = %d\
                 OR (e.publish_status = %d AND e.next_retry_time <= ?)\
                 OR (e.publish_status = %d AND e.lock_until <= ?))"""
                .formatted(StatusCodes.CLAIMABLE_LIST, PENDING, FAILED, PUBLISHING);
        this.orderGuard = ordered ? guard(table, unorderedTopics, probes, hints.probe()) : "";
        // lease_expiries and fail_reason come first: MySQL evaluates SET left to right with new values.
        // The takeover mark is this claim's only: an older one (an event given back or retried by hand
        // after a takeover) goes, so that the relay counts exactly the takeovers of this claim.
        this.leaseSet = """
                lease_expiries = CASE WHEN publish_status = %1$d THEN lease_expiries + 1 ELSE lease_expiries END,\
                 fail_reason = CASE WHEN publish_status = %1$d THEN ? WHEN fail_reason = %2$s THEN NULL\
                 ELSE fail_reason END,\
                 publish_status = %1$d, locked_by = ?, lock_until = ?, last_publish_time = ?,\
                 version = version + 1, update_time = ?"""
                .formatted(PUBLISHING, quoted(LEASE_EXPIRED));
        this.pendingFrom = " FROM %s e%s WHERE e.deleted = 0 AND e.publish_status = %d%s ORDER BY e.publish_status, e.id LIMIT ?"
                .formatted(table, hints.pending(), PENDING, orderGuard);
        // retry_count is in the order because it is in the index (status, next_retry_time, retry_count):
        // ordered as the index is, the select stops after its limit; ordered by id after next_retry_time it
        // would read, guard and sort every due row first (a backlog of retries after a broker outage)
        this.dueFrom = """
                \sFROM %s e%s WHERE e.deleted = 0 AND e.publish_status = %d AND e.next_retry_time <= ?%s\
                 ORDER BY e.publish_status, e.next_retry_time, e.retry_count, e.id LIMIT ?"""
                .formatted(table, hints.due(), FAILED, orderGuard);
        this.expiredFrom = """
                \sFROM %s e%s WHERE e.deleted = 0 AND e.publish_status = %d AND e.lock_until <= ?%s\
                 ORDER BY e.publish_status, e.lock_until, e.id LIMIT ?"""
                .formatted(table, hints.expired(), PUBLISHING, orderGuard);
        this.pendingSelect = select(columns, pendingFrom);
        this.dueSelect = select(columns, dueFrom);
        this.expiredSelect = select(columns, expiredFrom);
    }

    /** {@code SELECT <selected><from>}. */
    static String select(String selected, String from) {
        return "SELECT %s%s".formatted(selected, from);
    }

    /**
     * No earlier event of the same aggregate may be unfinished (pending, publishing, failed or dead);
     * cancelled and published ones do not block. Events of unordered topics neither wait nor block.
     * Soft-deleted rows ({@code deleted = 1}) do not block either: they are never claimed, so an unfinished
     * one would hold its aggregate forever, and deleting an event is a person's decision that it is not to
     * be published (like a cancel); the admin operations do not see deleted rows.
     */
    private static String guard(String table, Set<String> unorderedTopics, Probes probes, String probeHint) {
        String list = topicList(unorderedTopics);
        String topicFilter = unorderedTopics.isEmpty() ? "" : " AND (p.topic IS NULL OR p.topic NOT IN (%s))".formatted(list);
        Function<String, String> sameAggregate = status -> """
                \sFROM %s p%s WHERE p.aggregate_type = e.aggregate_type AND p.aggregate_id = e.aggregate_id\
                 AND p.publish_status %s AND p.deleted = 0%s"""
                .formatted(table, probeHint, status, topicFilter);
        Function<String, String> earlier = status ->
                "NOT EXISTS (SELECT 1%s AND p.id < e.id)".formatted(sameAggregate.apply(status));
        String guard = switch (probes) {
            case FIRST_UNFINISHED -> "COALESCE((SELECT p.id%s ORDER BY p.id LIMIT 1), e.id) >= e.id"
                    .formatted(sameAggregate.apply("IN (%s)".formatted(StatusCodes.BLOCKING_LIST)));
            case NOT_EXISTS_PER_STATUS -> StatusCodes.BLOCKING.stream().map(code -> earlier.apply("= " + code))
                    .collect(Collectors.joining(" AND "));
            case FIRST_ID_PER_STATUS -> StatusCodes.BLOCKING.stream()
                    .map(code -> "COALESCE((SELECT p.id%s ORDER BY p.id LIMIT 1), e.id) >= e.id"
                            .formatted(sameAggregate.apply("= " + code)))
                    .collect(Collectors.joining(" AND "));
        };
        return unorderedTopics.isEmpty() ? " AND " + guard : " AND (e.topic IN (%s) OR (%s))".formatted(list, guard);
    }

    /** The topics as quoted SQL literals, comma separated. */
    static String topicList(Set<String> topics) {
        return topics.stream().map(ClaimSql::quoted).collect(Collectors.joining(", "));
    }

    /** {@code text} as an SQL string literal. */
    static String quoted(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** {@code n} parameters of an IN list: {@code "?, ?, ?"}. */
    static String placeholders(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** {@code r} as the claim's UPDATE leaves it (for strategies that update rows they already read). */
    static OutboxRecord leased(OutboxRecord r, String owner, Instant now, Instant lockUntil) {
        boolean expired = r.status() == OutboxStatus.PUBLISHING;
        String reason = expired ? LEASE_EXPIRED : LEASE_EXPIRED.equals(r.failReason()) ? null : r.failReason();
        return new OutboxRecord(r.id(), r.eventNo(), r.aggregateType(), r.aggregateId(),
                r.eventType(), r.eventVersion(), r.source(), r.channel(), r.topic(), r.routingKey(), r.payload(),
                r.headers(), OutboxStatus.PUBLISHING, r.retryCount(),
                r.maxRetryCount(), r.nextRetryTime(), owner, lockUntil, now, r.publishedTime(),
                reason, r.traceId(), r.remark(), r.version() + 1, r.createTime(), now,
                expired ? r.leaseExpiries() + 1 : r.leaseExpiries());
    }

    static String qualified(String alias, String columns) {
        return Arrays.stream(columns.split(",")).map(c -> alias + "." + c.strip())
                .collect(Collectors.joining(", "));
    }
}
