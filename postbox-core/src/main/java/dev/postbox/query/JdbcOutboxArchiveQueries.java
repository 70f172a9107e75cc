package dev.postbox.query;

import dev.postbox.internal.Check;
import dev.postbox.internal.Settings;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxRows;

import java.util.Optional;

/** {@link OutboxArchiveQueries} on the archive twin, through its event_no, aggregate and trace id indexes. */
final class JdbcOutboxArchiveQueries implements OutboxArchiveQueries {

    private final Settings s;
    private final String byEventNoSql;
    private final Keyset<OutboxRecord> byAggregate;
    private final Keyset<OutboxRecord> byTraceId;

    JdbcOutboxArchiveQueries(Settings settings) {
        this.s = settings;
        String t = settings.tables().outboxArchive();
        String cols = OutboxRows.COLUMNS;
        byEventNoSql = "SELECT %s FROM %s WHERE event_no = ? ORDER BY id".formatted(cols, t);
        byAggregate = Keyset.byId(cols, t, "aggregate_type = ? AND aggregate_id = ?",
                Keyset.pinned(settings.dialect(), "aggregate_type, aggregate_id"),
                OutboxRows::read, OutboxRecord::id);
        byTraceId = Keyset.byId(cols, t, "trace_id = ?", Keyset.pinned(settings.dialect(), "trace_id"), OutboxRows::read, OutboxRecord::id);
    }

    @Override
    public Optional<OutboxRecord> byEventNo(String eventNo) {
        Check.required(s.dialect(), "eventNo", eventNo, 64);
        return Keyset.one(s, byEventNoSql, eventNo, OutboxRows::read, "archived outbox event by event_no");
    }

    @Override
    public Page<OutboxRecord> byAggregate(String aggregateType, String aggregateId, PageRequest page) {
        Check.required(s.dialect(), "aggregateType", aggregateType, 64);
        Check.required(s.dialect(), "aggregateId", aggregateId, 64);
        return byAggregate.page(s, page, "archived outbox events of aggregate " + aggregateType + "/" + aggregateId,
                aggregateType, aggregateId);
    }

    @Override
    public Page<OutboxRecord> byTraceId(String traceId, PageRequest page) {
        Check.required(s.dialect(), "traceId", traceId, 128);
        return byTraceId.page(s, page, "archived outbox events by trace id", traceId);
    }
}
