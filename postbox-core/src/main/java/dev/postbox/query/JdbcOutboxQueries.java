package dev.postbox.query;

import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;
import dev.postbox.outbox.OutboxStatus;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * {@link OutboxQueries} on plain JDBC. Status codes are literals in the SQL text (from the status enum, not
 * parameters) so that partial indexes apply.
 */
final class JdbcOutboxQueries implements OutboxQueries {

    private static final String COLS = OutboxRows.COLUMNS;

    private final Settings s;
    final Keyset<OutboxRecord> pending;
    final Keyset<OutboxRecord> dueRetries;
    final Keyset<OutboxRecord> expiredLeases;
    final Keyset<OutboxRecord> byAggregate;
    final Keyset<OutboxRecord> byTraceId;
    private final Keyset<OutboxRecord>[] byStatus;
    private final Keyset<OutboxRecord> failedByTopic;
    private final Keyset<OutboxRecord> mostRetried;
    final String byEventNoSql;
    private final String countSql;
    private final BacklogReader backlog;

    @SuppressWarnings("unchecked")
    JdbcOutboxQueries(Settings settings) {
        this.s = settings;
        String t = settings.tables().outbox();
        String byStatusIndex = t + settings.dialect().forceIndex("idx_status_id");
        pending = Keyset.byId(COLS, byStatusIndex, "deleted = 0 AND publish_status = %d".formatted(OutboxStatus.PENDING.code()),
                "publish_status", OutboxRows::read, OutboxRecord::id);
        dueRetries = Keyset.byTime(COLS, t, "deleted = 0 AND publish_status = %d AND next_retry_time <= ?"
                        .formatted(OutboxStatus.FAILED.code()),
                "publish_status", "next_retry_time", false, OutboxRows::read, OutboxRecord::id, OutboxRecord::nextRetryTime);
        expiredLeases = Keyset.byTime(COLS, t, "deleted = 0 AND publish_status = %d AND lock_until <= ?"
                        .formatted(OutboxStatus.PUBLISHING.code()),
                "publish_status", "lock_until", false, OutboxRows::read, OutboxRecord::id, OutboxRecord::lockUntil);
        byAggregate = Keyset.byId(COLS, t, "deleted = 0 AND aggregate_type = ? AND aggregate_id = ?",
                Keyset.pinned(settings.dialect(), "aggregate_type, aggregate_id"), OutboxRows::read, OutboxRecord::id);
        byTraceId = Keyset.byId(COLS, t, "deleted = 0 AND trace_id = ?", Keyset.pinned(settings.dialect(), "trace_id"), OutboxRows::read, OutboxRecord::id);
        byStatus = new Keyset[OutboxStatus.values().length];
        for (OutboxStatus status : OutboxStatus.values()) {
            byStatus[status.code()] = Keyset.byId(COLS, byStatusIndex, "deleted = 0 AND publish_status = %d".formatted(status.code()),
                    "publish_status",
                    OutboxRows::read, OutboxRecord::id);
        }
        failedByTopic = Keyset.byTime(COLS, t, "deleted = 0 AND topic = ? AND publish_status = %d".formatted(OutboxStatus.FAILED.code()),
                null, "update_time", true, OutboxRows::read, OutboxRecord::id, OutboxRecord::updateTime);
        mostRetried = Keyset.byTime(COLS, t, "deleted = 0 AND publish_status IN (%d, %d) AND retry_count >= ?"
                        .formatted(OutboxStatus.FAILED.code(), OutboxStatus.DEAD.code()),
                null, "update_time", true, OutboxRows::read, OutboxRecord::id, OutboxRecord::updateTime);
        byEventNoSql = "SELECT %s FROM %s WHERE event_no = ?".formatted(COLS, t);
        countSql = """
                SELECT publish_status, COUNT(*) FROM %s
                WHERE deleted = 0 AND event_type = ? AND create_time >= ? AND create_time < ?
                GROUP BY publish_status ORDER BY publish_status""".formatted(t);
        backlog = new BacklogReader(byStatusIndex, "publish_status", OutboxStatus.PENDING.code(),
                OutboxStatus.PUBLISHING.code(), OutboxStatus.FAILED.code(), OutboxStatus.DEAD.code());
    }

    @Override
    public Backlog backlog() {
        return backlog.read(s, "outbox backlog");
    }

    @Override
    public Page<OutboxRecord> pending(PageRequest page) {
        return pending.page(s, page, "pending outbox events");
    }

    @Override
    public Page<OutboxRecord> dueRetries(PageRequest page) {
        Instant now = s.now();
        return dueRetries.page(s, page, "due outbox retries", now);
    }

    @Override
    public Page<OutboxRecord> expiredLeases(PageRequest page) {
        Instant now = s.now();
        return expiredLeases.page(s, page, "expired outbox leases", now);
    }

    @Override
    public Page<OutboxRecord> byAggregate(String aggregateType, String aggregateId, PageRequest page) {
        Check.required(s.dialect(), "aggregateType", aggregateType, 64);
        Check.required(s.dialect(), "aggregateId", aggregateId, 64);
        return byAggregate.page(s, page, "outbox events of aggregate " + aggregateType + "/" + aggregateId, aggregateType, aggregateId);
    }

    @Override
    public Optional<OutboxRecord> byEventNo(String eventNo) {
        Check.required(s.dialect(), "eventNo", eventNo, 64);
        return Keyset.one(s, byEventNoSql, eventNo, OutboxRows::read, "outbox event by event_no");
    }

    @Override
    public Page<OutboxRecord> byTraceId(String traceId, PageRequest page) {
        Check.required(s.dialect(), "traceId", traceId, 128);
        return byTraceId.page(s, page, "outbox events by trace id", traceId);
    }

    @Override
    public Page<OutboxRecord> byStatus(OutboxStatus status, PageRequest page) {
        return byStatus[status.code()].page(s, page, "outbox events in status " + status);
    }

    @Override
    public Map<OutboxStatus, Long> countByStatus(String eventType, Instant from, Instant to) {
        Check.required(s.dialect(), "eventType", eventType, 64);
        long[] counts = StatusCounts.count(s, countSql, eventType, from, to, "outbox status counts");
        Map<OutboxStatus, Long> result = new java.util.EnumMap<>(OutboxStatus.class);
        for (OutboxStatus status : OutboxStatus.values()) {
            result.put(status, counts[status.code()]);
        }
        return result;
    }

    @Override
    public Page<OutboxRecord> failedByTopic(String topic, PageRequest page) {
        Check.required(s.dialect(), "topic", topic, 128);
        return failedByTopic.page(s, page, "failed outbox events of topic " + topic, topic);
    }

    @Override
    public Page<OutboxRecord> mostRetried(int minRetries, PageRequest page) {
        Check.range("minRetries", minRetries, 0, Integer.MAX_VALUE);
        return mostRetried.page(s, page, "most retried outbox events", minRetries);
    }
}
