package dev.postbox.relay;

import java.time.Duration;

/** Every default of the relay, one named constant each (read by the builder, Spring and the server). */
public final class RelayDefaults {

    /** Events claimed per cycle. */
    public static final int BATCH_SIZE = 500;
    /** Largest batch accepted. */
    public static final int MAX_BATCH_SIZE = 5000;
    /**
     * How long a claim holds its events before another relay may take them over (seed 000: 2 minutes).
     * Live relays renew the leases of their batch in flight every third of it, so it does not have to
     * cover a slow batch: it is how long a dead relay's events wait before they move again.
     */
    public static final Duration LEASE = Duration.ofSeconds(5);
    /** Shortest lease accepted: renewals (every third of it) must have time for a database round trip. */
    public static final Duration MIN_LEASE = Duration.ofMillis(300);
    /**
     * Takeovers after which an event is DEAD instead of published again: an event whose relay stopped
     * this many times while holding it may be what kills relays (a poison event).
     */
    public static final int MAX_LEASE_EXPIRIES = 10;
    /**
     * Largest offset between a relay's clock and the database's at which the relay still takes over
     * other relays' expired leases; a third of the default lease less than the renewal interval.
     */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(1);
    /** How often the relay measures its clock against the database's. */
    public static final Duration CLOCK_CHECK_INTERVAL = Duration.ofSeconds(30);
    /** How long one publish may take before the event is recorded as a retryable timeout. */
    public static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);
    /** First wait after an empty claim; doubles while idle. */
    public static final Duration POLL_MIN = Duration.ofMillis(10);
    /** Longest wait between claims while idle: the latency bound when no wake-up arrives. */
    public static final Duration POLL_MAX = Duration.ofMillis(500);
    /** Connections in the relay's own pool. */
    public static final int POOL_SIZE = 2;

    /** Batches one relay has in flight at once: the next is claimed while one is published and recorded. */
    public static final int IN_FLIGHT_BATCHES = 2;

    /** Most batches one relay may have in flight at once. */
    public static final int MAX_IN_FLIGHT_BATCHES = 8;
    /**
     * Time between two heartbeats of a relay: its row in {@code biz_relay_instance} is refreshed and one
     * {@code biz_relay_stats} row for the window just ended is written (none when nothing happened).
     */
    public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(10);

    /** How long close() lets an in-flight batch finish before giving its leases back. */
    public static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);

    private RelayDefaults() {
    }
}
