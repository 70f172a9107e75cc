package dev.postbox.message;

import dev.postbox.common.RetryPolicy;

import java.time.Duration;

/** Every default of the message-event worker, one named constant each. */
public final class WorkerDefaults {

    /** Events claimed per cycle. */
    public static final int BATCH_SIZE = 100;
    /** Largest batch accepted. */
    public static final int MAX_BATCH_SIZE = 5000;
    /** Threads per worker, each claiming and handling its own batches. */
    public static final int THREADS = 1;
    /** First wait after an empty cycle; doubles while idle. */
    public static final Duration POLL_MIN = Duration.ofMillis(10);
    /** Longest wait between cycles while idle. */
    public static final Duration POLL_MAX = Duration.ofSeconds(1);
    /** Longest a handler may run before its attempt is recorded as a (retryable) timeout. */
    public static final Duration HANDLER_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long an event may stay PROCESSING without news from its worker before another worker recovers
     * it as a failed attempt. At least twice the handler timeout.
     */
    public static final Duration STUCK_TIMEOUT = Duration.ofMinutes(5);
    /** How long close() lets the handler in progress finish. */
    public static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);
    /**
     * Time between two heartbeats of a worker: its row in {@code biz_relay_instance} is refreshed and one
     * {@code biz_relay_stats} row for the window just ended is written (none when nothing happened).
     */
    public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(10);
    /** Retry schedule of seed 000: 1 min, 5 min, 30 min, then 2 h. */
    public static final RetryPolicy RETRY_POLICY = RetryPolicy.seed000();

    private WorkerDefaults() {
    }
}
