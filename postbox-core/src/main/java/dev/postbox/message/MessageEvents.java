package dev.postbox.message;

import dev.postbox.outbox.WriteResult;

import java.sql.Connection;
import java.time.Duration;

/**
 * Seed 000's writes on {@code biz_message_event}. Creation joins the caller's transaction; every state
 * change is one conditional UPDATE by primary key whose affected-row count decides the outcome, so concurrent
 * callers can never both win; it locks that event's row only. Allowed transitions:
 * <pre>
 * PENDING -&gt; PROCESSING -&gt; SUCCEEDED
 * PENDING -&gt; PROCESSING -&gt; FAILED -&gt; PROCESSING ...   (retry, once next_retry_time has passed)
 * PROCESSING -&gt; DEAD                                  (retries exhausted or not retryable)
 * PENDING | FAILED -&gt; CANCELLED
 * </pre>
 * Every transition bumps {@code version}: the {@link MessageWorker} fences its writes after a claim by it.
 * These calls are for handling events by hand; {@code postbox.worker()} runs handlers with claims in batches,
 * timeouts, retries and stuck-event recovery. Thread-safe.
 */
public interface MessageEvents {

    /**
     * Creates an event in the transaction of {@code connection}; a second create with the same
     * {@code event_no} returns DUPLICATE and changes nothing.
     *
     * @throws dev.postbox.common.ValidationException          bad event, before any SQL
     * @throws dev.postbox.common.TransactionRequiredException the connection is in auto-commit mode
     */
    WriteResult create(Connection connection, MessageEvent event);

    /**
     * Claims event {@code id} for handling: PENDING, or FAILED whose next_retry_time has passed, becomes
     * PROCESSING with {@code last_handle_time = now} and {@code version + 1}.
     *
     * @return true only for the one caller that won the event
     */
    boolean claim(Connection connection, long id);

    /** PROCESSING becomes SUCCEEDED; false (and nothing changed) from any other status. */
    boolean succeed(Connection connection, long id);

    /**
     * Records a failed attempt of a PROCESSING event: {@code retry_count + 1} and {@code fail_reason}
     * (made storable: NUL and other control characters but tab and line breaks, and unpaired surrogates,
     * become U+FFFD; clipped to 1,000 characters). If a retry is left, the event becomes FAILED, due after
     * {@code retryAfter} (zero or positive; a retry time past what the column holds, such as after
     * {@code Duration.ofSeconds(Long.MAX_VALUE)}, is stored as the latest time it holds: 9999-12-31 on
     * MySQL/MariaDB); otherwise it becomes DEAD. Either way the attempt is added to the event's attempt
     * history ({@code biz_event_attempt}: outcome FAILED or DEAD, no instance) in the same transaction.
     *
     * @throws dev.postbox.common.ValidationException if {@code retryAfter} is null or negative
     */
    FailOutcome fail(Connection connection, long id, String reason, Duration retryAfter);

    /**
     * Records a failure that must not be retried: PROCESSING becomes DEAD at once; reason and attempt history as
     * in {@link #fail}.
     */
    FailOutcome failPermanently(Connection connection, long id, String reason);

    /**
     * PENDING or FAILED becomes CANCELLED with {@code reason} (made storable as in {@link #fail}); false
     * (and nothing changed) otherwise.
     */
    boolean cancel(Connection connection, long id, String reason);
}
