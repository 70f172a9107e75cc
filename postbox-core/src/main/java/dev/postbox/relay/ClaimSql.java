package dev.postbox.relay;

import dev.postbox.internal.Rows;

import java.util.Set;
import java.util.stream.Collectors;

/**
 * The SQL fragments every claim strategy shares: which rows are claimable, the per-aggregate order
 * guard, and the SET list that turns a claimable row into a lease. Built once per relay.
 */
final class ClaimSql {

    /** fail_reason recorded when a lease expired: the crashed-publisher recovery of seed 000. */
    static final String LEASE_EXPIRED = "lease expired before the relay recorded an outcome; publishing again";

    final String table;
    final String columns = Rows.OUTBOX_COLUMNS;
    /** Claimable rows of alias e; two time parameters (now, now). */
    final String claimable;
    /** " AND <order guard on alias e>" or "" in unordered mode. */
    final String orderGuard;
    /** The SET list of the claim; parameters: reason, owner, lock_until, now (last_publish_time), now. */
    final String leaseSet;

    ClaimSql(String table, boolean ordered, Set<String> unorderedTopics) {
        this.table = table;
        this.claimable = "e.deleted = 0 AND e.publish_status IN (0, 1, 3) AND (e.publish_status = 0"
                + " OR (e.publish_status = 3 AND e.next_retry_time <= ?) OR (e.publish_status = 1 AND e.lock_until <= ?))";
        this.orderGuard = ordered ? guard(table, unorderedTopics) : "";
        // retry_count and fail_reason come first: MySQL evaluates SET left to right with new values
        this.leaseSet = "retry_count = CASE WHEN publish_status = 1 THEN retry_count + 1 ELSE retry_count END,"
                + " fail_reason = CASE WHEN publish_status = 1 THEN ? ELSE fail_reason END,"
                + " publish_status = 1, locked_by = ?, lock_until = ?, last_publish_time = ?,"
                + " version = version + 1, update_time = ?";
    }

    /**
     * No earlier event of the same aggregate may be unfinished (pending, publishing, failed or dead);
     * cancelled and published ones do not block. Events of unordered topics neither wait nor block.
     */
    private static String guard(String table, Set<String> unorderedTopics) {
        String blockers = "SELECT 1 FROM " + table + " p WHERE p.aggregate_type = e.aggregate_type"
                + " AND p.aggregate_id = e.aggregate_id AND p.publish_status IN (0, 1, 3, 5) AND p.id < e.id";
        if (unorderedTopics.isEmpty()) {
            return " AND NOT EXISTS (" + blockers + ")";
        }
        String list = unorderedTopics.stream().map(t -> "'" + t.replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
        return " AND (e.topic IN (" + list + ") OR NOT EXISTS (" + blockers
                + " AND (p.topic IS NULL OR p.topic NOT IN (" + list + "))))";
    }

    /** {@code r} as the claim's UPDATE leaves it (for strategies that update rows they already read). */
    static dev.postbox.outbox.OutboxRecord leased(dev.postbox.outbox.OutboxRecord r, String owner,
                                                   java.time.Instant now, java.time.Instant lockUntil) {
        boolean expired = r.status() == dev.postbox.outbox.OutboxStatus.PUBLISHING;
        return new dev.postbox.outbox.OutboxRecord(r.id(), r.eventNo(), r.aggregateType(), r.aggregateId(),
                r.eventType(), r.eventVersion(), r.source(), r.channel(), r.topic(), r.routingKey(), r.payload(),
                r.headers(), dev.postbox.outbox.OutboxStatus.PUBLISHING, expired ? r.retryCount() + 1 : r.retryCount(),
                r.maxRetryCount(), r.nextRetryTime(), owner, lockUntil, now, r.publishedTime(),
                expired ? LEASE_EXPIRED : r.failReason(), r.traceId(), r.remark(), r.version() + 1, r.createTime(), now);
    }

    static String qualified(String alias, String columns) {
        return java.util.Arrays.stream(columns.split(",")).map(c -> alias + "." + c.strip())
                .collect(Collectors.joining(", "));
    }
}
