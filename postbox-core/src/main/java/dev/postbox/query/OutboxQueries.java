package dev.postbox.query;

import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Seed 000's queries on {@code biz_outbox_event}, as a read API. Each runs on its own short connection
 * from the Postbox data source, is bounded by the page limit and is keyset-paged (no OFFSET), so a page
 * costs the same however deep it is. Thread-safe.
 */
public interface OutboxQueries {

    /** PENDING events, oldest first (id order). */
    Page<OutboxRecord> pending(PageRequest page);

    /** FAILED events whose next_retry_time has passed, earliest due first. */
    Page<OutboxRecord> dueRetries(PageRequest page);

    /** PUBLISHING events whose lease ({@code lock_until}) has expired, earliest first. */
    Page<OutboxRecord> expiredLeases(PageRequest page);

    /** Every event of one aggregate, in publication (id) order. */
    Page<OutboxRecord> byAggregate(String aggregateType, String aggregateId, PageRequest page);

    /** The event with this idempotency key, if any. */
    Optional<OutboxRecord> byEventNo(String eventNo);

    /** Events carrying this trace id, in id order. */
    Page<OutboxRecord> byTraceId(String traceId, PageRequest page);

    /** Events in one status, in id order (e.g. every DEAD event). */
    Page<OutboxRecord> byStatus(OutboxStatus status, PageRequest page);

    /**
     * How many events of {@code eventType} created in {@code [from, to)} are in each status; every
     * status is present in the map, in code order, with 0 where there are none.
     */
    Map<OutboxStatus, Long> countByStatus(String eventType, Instant from, Instant to);

    /** FAILED events of one topic, most recently updated first. */
    Page<OutboxRecord> failedByTopic(String topic, PageRequest page);

    /** FAILED or DEAD events that failed at least {@code minRetries} times, most recently updated first. */
    Page<OutboxRecord> mostRetried(int minRetries, PageRequest page);

    /**
     * Counts of the unfinished statuses and DEAD, and the age of the oldest unfinished event: one grouped
     * count over the status index (never over PUBLISHED rows) plus one first-row read per unfinished status
     * in (status, id) order, so its cost follows the backlog, not the table's history.
     */
    Backlog backlog();
}
