package dev.postbox.query;

import dev.postbox.common.ValidationException;
import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageRows;
import dev.postbox.message.MessageStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@link MessageQueries} on plain JDBC. Status codes are literals in the SQL text (from the status enum, not
 * parameters) so that partial indexes apply.
 */
final class JdbcMessageQueries implements MessageQueries {

    private static final String COLS = MessageRows.COLUMNS;

    private final Settings s;
    final Keyset<MessageRecord> pending;
    final Keyset<MessageRecord> dueRetries;
    final Keyset<MessageRecord> stuck;
    final Keyset<MessageRecord> byBiz;
    private final Keyset<MessageRecord> byTraceId;
    private final Keyset<MessageRecord>[] byStatus;
    private final Keyset<MessageRecord> mostRetried;
    final String byEventNoSql;
    private final String countSql;
    private final BacklogReader backlog;

    @SuppressWarnings("unchecked")
    JdbcMessageQueries(Settings settings) {
        this.s = settings;
        String t = settings.tables().message();
        String byStatusIndex = t + settings.dialect().forceIndex("idx_status_id");
        pending = Keyset.byId(COLS, byStatusIndex, "deleted = 0 AND event_status = %d".formatted(MessageStatus.PENDING.code()),
                "event_status", MessageRows::read, MessageRecord::id);
        dueRetries = Keyset.byTime(COLS, t, "deleted = 0 AND event_status = %d AND next_retry_time <= ?"
                        .formatted(MessageStatus.FAILED.code()),
                "event_status", "next_retry_time", false, MessageRows::read, MessageRecord::id, MessageRecord::nextRetryTime);
        stuck = Keyset.byTime(COLS, t, "deleted = 0 AND event_status = %d AND last_handle_time <= ?"
                        .formatted(MessageStatus.PROCESSING.code()),
                "event_status", "last_handle_time", false, MessageRows::read, MessageRecord::id, MessageRecord::lastHandleTime);
        byBiz = Keyset.byId(COLS, t, "deleted = 0 AND biz_type = ? AND biz_id = ?",
                Keyset.pinned(settings.dialect(), "biz_type, biz_id"), MessageRows::read, MessageRecord::id);
        byTraceId = Keyset.byId(COLS, t, "deleted = 0 AND trace_id = ?", Keyset.pinned(settings.dialect(), "trace_id"), MessageRows::read, MessageRecord::id);
        byStatus = new Keyset[MessageStatus.values().length];
        for (MessageStatus status : MessageStatus.values()) {
            byStatus[status.code()] = Keyset.byId(COLS, byStatusIndex, "deleted = 0 AND event_status = %d".formatted(status.code()),
                    "event_status",
                    MessageRows::read, MessageRecord::id);
        }
        mostRetried = Keyset.byTime(COLS, t, "deleted = 0 AND event_status IN (%d, %d) AND retry_count >= ?"
                        .formatted(MessageStatus.FAILED.code(), MessageStatus.DEAD.code()),
                null, "update_time", true, MessageRows::read, MessageRecord::id, MessageRecord::updateTime);
        byEventNoSql = "SELECT %s FROM %s WHERE event_no = ?".formatted(COLS, t);
        countSql = """
                SELECT event_status, COUNT(*) FROM %s
                WHERE deleted = 0 AND event_type = ? AND create_time >= ? AND create_time < ?
                GROUP BY event_status ORDER BY event_status""".formatted(t);
        backlog = new BacklogReader(byStatusIndex, "event_status", MessageStatus.PENDING.code(),
                MessageStatus.PROCESSING.code(), MessageStatus.FAILED.code(), MessageStatus.DEAD.code());
    }

    @Override
    public Backlog backlog() {
        return backlog.read(s, "message-event backlog");
    }

    @Override
    public Page<MessageRecord> pending(PageRequest page) {
        return pending.page(s, page, "pending message events");
    }

    @Override
    public Page<MessageRecord> dueRetries(PageRequest page) {
        Instant now = s.now();
        return dueRetries.page(s, page, "due message retries", now);
    }

    @Override
    public Page<MessageRecord> stuckProcessing(Duration olderThan, PageRequest page) {
        if (olderThan == null || olderThan.isNegative()) {
            throw new ValidationException("olderThan", "must be zero or positive (was " + olderThan + ")");
        }
        Instant cutoff = dev.postbox.internal.Instants.minus(s.now(), olderThan);
        return stuck.page(s, page, "stuck message events", cutoff);
    }

    @Override
    public Page<MessageRecord> byBiz(String bizType, String bizId, PageRequest page) {
        Check.required(s.dialect(), "bizType", bizType, 64);
        Check.required(s.dialect(), "bizId", bizId, 64);
        return byBiz.page(s, page, "message events of " + bizType + "/" + bizId, bizType, bizId);
    }

    @Override
    public Optional<MessageRecord> byEventNo(String eventNo) {
        Check.required(s.dialect(), "eventNo", eventNo, 64);
        return Keyset.one(s, byEventNoSql, eventNo, MessageRows::read, "message event by event_no");
    }

    @Override
    public Page<MessageRecord> byTraceId(String traceId, PageRequest page) {
        Check.required(s.dialect(), "traceId", traceId, 128);
        return byTraceId.page(s, page, "message events by trace id", traceId);
    }

    @Override
    public Page<MessageRecord> byStatus(MessageStatus status, PageRequest page) {
        return byStatus[status.code()].page(s, page, "message events in status " + status);
    }

    @Override
    public Map<MessageStatus, Long> countByStatus(String eventType, Instant from, Instant to) {
        Check.required(s.dialect(), "eventType", eventType, 64);
        long[] counts = StatusCounts.count(s, countSql, eventType, from, to, "message status counts");
        Map<MessageStatus, Long> result = new EnumMap<>(MessageStatus.class);
        for (MessageStatus status : MessageStatus.values()) {
            result.put(status, counts[status.code()]);
        }
        return result;
    }

    @Override
    public Page<MessageRecord> mostRetried(int minRetries, PageRequest page) {
        Check.range("minRetries", minRetries, 0, Integer.MAX_VALUE);
        return mostRetried.page(s, page, "most retried message events", minRetries);
    }
}
