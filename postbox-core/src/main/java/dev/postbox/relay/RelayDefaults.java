package dev.postbox.relay;

import java.time.Duration;

/** Every default of the relay, one named constant each (read by the builder, Spring and the server). */
public final class RelayDefaults {

    /** Events claimed per cycle. */
    public static final int BATCH_SIZE = 500;
    /** Largest batch accepted. */
    public static final int MAX_BATCH_SIZE = 5000;
    /** How long a claim holds its events before another relay may take them over (seed 000: 2 minutes). */
    public static final Duration LEASE = Duration.ofSeconds(60);
    /** How long one publish may take before the event is recorded as a retryable timeout. */
    public static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);
    /** First wait after an empty claim; doubles while idle. */
    public static final Duration POLL_MIN = Duration.ofMillis(10);
    /** Longest wait between claims while idle: the latency bound when no wake-up arrives. */
    public static final Duration POLL_MAX = Duration.ofMillis(500);
    /** Connections in the relay's own pool. */
    public static final int POOL_SIZE = 2;
    /** How long close() lets an in-flight batch finish before giving its leases back. */
    public static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);

    private RelayDefaults() {
    }
}
