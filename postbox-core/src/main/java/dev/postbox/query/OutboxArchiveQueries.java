package dev.postbox.query;

import dev.postbox.outbox.OutboxRecord;

import java.util.Optional;

/**
 * Lookups of outbox events that retention moved to {@code biz_outbox_event_archive}: the same record as
 * online (an archived event is always finished), found by the keys people search with. Keyset paging like
 * {@link OutboxQueries}. Thread-safe.
 */
public interface OutboxArchiveQueries {

    /** The archived event with this idempotency key, if any. */
    Optional<OutboxRecord> byEventNo(String eventNo);

    /** Archived events of one aggregate, in id order. */
    Page<OutboxRecord> byAggregate(String aggregateType, String aggregateId, PageRequest page);

    /** Archived events carrying this trace id, in id order. */
    Page<OutboxRecord> byTraceId(String traceId, PageRequest page);
}
