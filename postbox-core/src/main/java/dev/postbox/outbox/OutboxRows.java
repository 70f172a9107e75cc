package dev.postbox.outbox;

import dev.postbox.internal.Json;
import dev.postbox.jdbc.Dialect;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The columns and row mapping of the outbox table ({@code biz_outbox_event}), kept next to
 * {@link OutboxRecord} so that a new column changes one package. Used by Postbox's own packages (the
 * relay's claims, the queries); every query that maps outbox rows selects {@link #COLUMNS}. Not an API
 * for applications: it follows the schema, not a compatibility promise.
 */
public final class OutboxRows {

    /** Every column of the outbox table, in the order of the record; one line of SQL. */
    public static final String COLUMNS = """
            id, event_no, aggregate_type, aggregate_id, event_type, event_version, event_source, \
            publish_channel, topic, routing_key, event_payload, event_headers, publish_status, retry_count, \
            max_retry_count, next_retry_time, locked_by, lock_until, last_publish_time, published_time, \
            fail_reason, trace_id, remark, version, create_time, update_time, lease_expiries""";

    /**
     * The SET list of a person's retry (from FAILED or DEAD): PENDING with a fresh set of retries and lease
     * takeovers, no retry time, no lease. {@code postbox.admin()} and {@code postbox.operations()} both use it.
     */
    public static final String RETRY_SET = ("publish_status = %d, retry_count = 0, lease_expiries = 0,"
            + " next_retry_time = NULL, locked_by = NULL, lock_until = NULL").formatted(OutboxStatus.PENDING.code());

    /** The SET list of a person's cancel (from PENDING, FAILED or DEAD): CANCELLED, no retry time, no lease. */
    public static final String CANCEL_SET = "publish_status = %d, next_retry_time = NULL, locked_by = NULL, lock_until = NULL"
            .formatted(OutboxStatus.CANCELLED.code());

    private OutboxRows() {
    }

    /** The record of the current row of {@code rs}, which selected {@link #COLUMNS}; times read through {@code d}. */
    public static OutboxRecord read(ResultSet rs, Dialect d) throws SQLException {
        return new OutboxRecord(
                rs.getLong("id"),
                rs.getString("event_no"),
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getString("event_type"),
                rs.getInt("event_version"),
                rs.getString("event_source"),
                rs.getString("publish_channel"),
                rs.getString("topic"),
                rs.getString("routing_key"),
                rs.getString("event_payload"),
                Json.readHeaders(rs.getString("event_headers")),
                OutboxStatus.of(rs.getInt("publish_status")),
                rs.getInt("retry_count"),
                rs.getInt("max_retry_count"),
                d.readTime(rs, "next_retry_time"),
                rs.getString("locked_by"),
                d.readTime(rs, "lock_until"),
                d.readTime(rs, "last_publish_time"),
                d.readTime(rs, "published_time"),
                rs.getString("fail_reason"),
                rs.getString("trace_id"),
                rs.getString("remark"),
                rs.getInt("version"),
                d.readTime(rs, "create_time"),
                d.readTime(rs, "update_time"),
                rs.getInt("lease_expiries"));
    }
}
