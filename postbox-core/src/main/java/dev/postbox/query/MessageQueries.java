package dev.postbox.query;

import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Seed 000's queries on {@code biz_message_event}; bounded and keyset-paged. Thread-safe. */
public interface MessageQueries {

    /** PENDING events, oldest first (id order). */
    Page<MessageRecord> pending(PageRequest page);

    /** FAILED events whose next_retry_time has passed, earliest due first. */
    Page<MessageRecord> dueRetries(PageRequest page);

    /** PROCESSING events whose last_handle_time is at least {@code olderThan} ago (stuck handlers). */
    Page<MessageRecord> stuckProcessing(Duration olderThan, PageRequest page);

    /** Every event of one business object, in id order. */
    Page<MessageRecord> byBiz(String bizType, String bizId, PageRequest page);

    /** The event with this idempotency key, if any. */
    Optional<MessageRecord> byEventNo(String eventNo);

    /** Events carrying this trace id, in id order. */
    Page<MessageRecord> byTraceId(String traceId, PageRequest page);

    /** Events in one status, in id order. */
    Page<MessageRecord> byStatus(MessageStatus status, PageRequest page);

    /** Count per status of {@code eventType} events created in {@code [from, to)}; every status present. */
    Map<MessageStatus, Long> countByStatus(String eventType, Instant from, Instant to);

    /** FAILED or DEAD events that failed at least {@code minRetries} times, most recently updated first. */
    Page<MessageRecord> mostRetried(int minRetries, PageRequest page);

    /**
     * Counts of PENDING, PROCESSING, FAILED and DEAD message events and the age of the oldest unfinished one,
     * read like {@link OutboxQueries#backlog()}: its cost follows the backlog, not the table's history.
     */
    Backlog backlog();
}
