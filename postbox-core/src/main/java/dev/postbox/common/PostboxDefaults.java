package dev.postbox.common;

/**
 * Every default Postbox uses, one named constant each. The builder, the Spring properties and the
 * server configuration all read these, so a default is changed in exactly one place.
 */
public final class PostboxDefaults {

    /** Table name prefix: tables are {@code biz_outbox_event}, {@code biz_message_event}, ... */
    public static final String TABLE_PREFIX = "biz_";

    /** Longest table prefix accepted, so that every derived table and index name fits in 63 characters. */
    public static final int MAX_TABLE_PREFIX_LENGTH = 16;

    /** Largest payload accepted, in UTF-8 bytes (1 MiB, Kafka's default maximum message size). */
    public static final int MAX_PAYLOAD_BYTES = 1024 * 1024;

    /** Largest serialized header map accepted, in UTF-8 bytes. */
    public static final int MAX_HEADERS_BYTES = 16 * 1024;

    /** Retries after the first attempt for an outbox event (seed 000: max_retry_count DEFAULT 5). */
    public static final int OUTBOX_MAX_RETRIES = 5;

    /** Retries after the first attempt for a message event (seed 000: max_retry_count DEFAULT 3). */
    public static final int MESSAGE_MAX_RETRIES = 3;

    /** Upper bound for max retries on any event; more than this is a configuration mistake. */
    public static final int MAX_RETRIES_LIMIT = 1000;

    /** Event schema version when none is given (seed 000: event_version DEFAULT 1). */
    public static final int EVENT_VERSION = 1;

    /** Least time between two NOTIFYs of one Postbox's writes on PostgreSQL, in milliseconds. */
    public static final int NOTIFY_INTERVAL_MS = 5;

    /** {@link #NOTIFY_INTERVAL_MS} as a duration. */
    public static final java.time.Duration NOTIFY_INTERVAL = java.time.Duration.ofMillis(NOTIFY_INTERVAL_MS);

    /** Rows per INSERT statement in {@code writeAll}; larger batches use several statements. */
    public static final int WRITE_BATCH_ROWS = 500;

    /** Largest page any query returns. */
    public static final int MAX_PAGE_SIZE = 1000;

    private PostboxDefaults() {
    }
}
