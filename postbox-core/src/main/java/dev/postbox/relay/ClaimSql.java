package dev.postbox.relay;


import dev.postbox.outbox.OutboxRows;

import java.util.Set;
import java.util.stream.Collectors;

/**
 * The SQL fragments every claim strategy shares: which rows are claimable, the per-aggregate order
 * guard, and the SET list that turns a claimable row into a lease. Built once per relay.
 */
final class ClaimSql {

    /**
     * fail_reason recorded when a lease expired: the crashed-publisher recovery of seed 000. Unlike seed
     * 000 the takeover is counted in {@code lease_expiries}, not as a failed attempt in {@code retry_count}.
     */
    static final String LEASE_EXPIRED = "lease expired before the relay recorded an outcome; publishing again";

    /** The statuses that make later events of the aggregate wait: pending, publishing, failed, dead. */
    private static final java.util.List<String> BLOCKING = java.util.List.of("= 0", "= 1", "= 3", "= 5");

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

    /** Pending, due and expired candidates in their index order; each takes (limit) or (now, limit). */
    final String pendingSelect;
    final String dueSelect;
    final String expiredSelect;

    ClaimSql(String table, boolean ordered, Set<String> unorderedTopics) {
        this(table, ordered, unorderedTopics, Probes.IN_LIST, "", "");
    }

    /** How the order guard looks for an earlier unfinished event of the same aggregate. */
    enum Probes {
        /** One NOT EXISTS with {@code publish_status IN (0, 1, 3, 5)}: PostgreSQL's partial index holds exactly those rows. */
        IN_LIST,
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
     * @param probes      the form of the order guard; the per-status forms are for planners (MySQL, H2) that
     *                    cannot use an IN list in the middle of the (aggregate, status, id) index
     * @param pendingHint index hint for the pending select (MySQL)
     * @param probeHint   index hint for the guard's probes (MySQL: its planner may otherwise pick the
     *                    status index and walk every in-flight or dead row per candidate)
     */
    ClaimSql(String table, boolean ordered, Set<String> unorderedTopics, Probes probes, String pendingHint,
             String probeHint) {
        this.table = table;
        this.claimable = "e.deleted = 0 AND e.publish_status IN (0, 1, 3) AND (e.publish_status = 0"
                + " OR (e.publish_status = 3 AND e.next_retry_time <= ?) OR (e.publish_status = 1 AND e.lock_until <= ?))";
        this.orderGuard = ordered ? guard(table, unorderedTopics, probes, probeHint) : "";
        // lease_expiries and fail_reason come first: MySQL evaluates SET left to right with new values
        this.leaseSet = "lease_expiries = CASE WHEN publish_status = 1 THEN lease_expiries + 1 ELSE lease_expiries END,"
                // the takeover mark is this claim's only: an older one (an event given back or retried by hand
                // after a takeover) goes, so that the relay counts exactly the takeovers of this claim
                + " fail_reason = CASE WHEN publish_status = 1 THEN ? WHEN fail_reason = '"
                + LEASE_EXPIRED.replace("'", "''") + "' THEN NULL ELSE fail_reason END,"
                + " publish_status = 1, locked_by = ?, lock_until = ?, last_publish_time = ?,"
                + " version = version + 1, update_time = ?";
        String head = "SELECT " + columns + " FROM " + table + " e";
        this.pendingSelect = head + pendingHint + " WHERE e.deleted = 0 AND e.publish_status = 0" + orderGuard
                + " ORDER BY e.publish_status, e.id LIMIT ?";
        this.dueSelect = head + " WHERE e.deleted = 0 AND e.publish_status = 3 AND e.next_retry_time <= ?" + orderGuard
                + " ORDER BY e.publish_status, e.next_retry_time, e.id LIMIT ?";
        this.expiredSelect = head + " WHERE e.deleted = 0 AND e.publish_status = 1 AND e.lock_until <= ?" + orderGuard
                + " ORDER BY e.publish_status, e.lock_until, e.id LIMIT ?";
    }

    /**
     * No earlier event of the same aggregate may be unfinished (pending, publishing, failed or dead);
     * cancelled and published ones do not block. Events of unordered topics neither wait nor block.
     * Soft-deleted rows ({@code deleted = 1}) do not block either: they are never claimed, so an unfinished
     * one would hold its aggregate forever, and deleting an event is a person's decision that it is not to
     * be published (like a cancel); the admin operations do not see deleted rows.
     */
    private static String guard(String table, Set<String> unorderedTopics, Probes probes, String probeHint) {
        String list = unorderedTopics.stream().map(t -> "'" + t.replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
        String topicFilter = unorderedTopics.isEmpty() ? "" : " AND (p.topic IS NULL OR p.topic NOT IN (" + list + "))";
        // the topic list is user text: assembled by concatenation, never through a format string
        java.util.function.Function<String, String> sameAggregate = status -> " FROM " + table + " p" + probeHint
                + " WHERE p.aggregate_type = e.aggregate_type AND p.aggregate_id = e.aggregate_id"
                + " AND p.publish_status " + status + " AND p.deleted = 0" + topicFilter;
        java.util.function.Function<String, String> earlier = status ->
                "NOT EXISTS (SELECT 1" + sameAggregate.apply(status) + " AND p.id < e.id)";
        String guard = switch (probes) {
            case IN_LIST -> earlier.apply("IN (0, 1, 3, 5)");
            case NOT_EXISTS_PER_STATUS -> BLOCKING.stream().map(earlier).collect(Collectors.joining(" AND "));
            case FIRST_ID_PER_STATUS -> BLOCKING.stream()
                    .map(status -> "COALESCE((SELECT p.id" + sameAggregate.apply(status) + " ORDER BY p.id LIMIT 1), e.id) >= e.id")
                    .collect(Collectors.joining(" AND "));
        };
        return unorderedTopics.isEmpty() ? " AND " + guard : " AND (e.topic IN (" + list + ") OR (" + guard + "))";
    }

    /** {@code r} as the claim's UPDATE leaves it (for strategies that update rows they already read). */
    static dev.postbox.outbox.OutboxRecord leased(dev.postbox.outbox.OutboxRecord r, String owner,
                                                   java.time.Instant now, java.time.Instant lockUntil) {
        boolean expired = r.status() == dev.postbox.outbox.OutboxStatus.PUBLISHING;
        return new dev.postbox.outbox.OutboxRecord(r.id(), r.eventNo(), r.aggregateType(), r.aggregateId(),
                r.eventType(), r.eventVersion(), r.source(), r.channel(), r.topic(), r.routingKey(), r.payload(),
                r.headers(), dev.postbox.outbox.OutboxStatus.PUBLISHING, r.retryCount(),
                r.maxRetryCount(), r.nextRetryTime(), owner, lockUntil, now, r.publishedTime(),
                expired ? LEASE_EXPIRED : LEASE_EXPIRED.equals(r.failReason()) ? null : r.failReason(), r.traceId(), r.remark(), r.version() + 1, r.createTime(), now,
                expired ? r.leaseExpiries() + 1 : r.leaseExpiries());
    }

    static String qualified(String alias, String columns) {
        return java.util.Arrays.stream(columns.split(",")).map(c -> alias + "." + c.strip())
                .collect(Collectors.joining(", "));
    }
}
