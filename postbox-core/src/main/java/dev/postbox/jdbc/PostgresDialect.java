package dev.postbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * PostgreSQL: TIMESTAMPTZ instants (up to the year 294276), json/jsonb bound as untyped text, ON CONFLICT
 * DO NOTHING. The payload column is {@code json}, kept verbatim, so it takes any JSON the parser accepts.
 */
final class PostgresDialect implements Dialect {

    private static final Instant EARLIEST = Instant.parse("-4712-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("+294276-12-31T23:59:59.999Z");

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public void bindJson(PreparedStatement ps, int index, String json) throws SQLException {
        // Types.OTHER sends the text untyped, so the server converts it to the column's json or jsonb type.
        if (json == null) {
            ps.setNull(index, Types.OTHER);
        } else {
            ps.setObject(index, json, Types.OTHER);
        }
    }

    @Override
    public void bindTime(PreparedStatement ps, int index, Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(storableTime(instant), ZoneOffset.UTC));
        }
    }

    @Override
    public Instant latestTime() {
        return LATEST;
    }

    @Override
    public Instant earliestTime() {
        return EARLIEST;
    }

    /** The payload is a {@code json} column, which stores the text as written. */
    @Override
    public boolean acceptsJsonLoneSurrogateEscapes() {
        return true;
    }

    @Override
    public Instant readTime(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    @Override
    public String skipDuplicatesReturning(String keyColumns, String returnedColumn) {
        if (keyColumns == null) {
            // a partitioned table: its key trigger skips the duplicate (no unique index to name as the target)
            return " ON CONFLICT DO NOTHING RETURNING %s".formatted(returnedColumn);
        }
        return " ON CONFLICT (%s) DO NOTHING RETURNING %s".formatted(keyColumns, returnedColumn);
    }

    @Override
    public String partitionedTableSql() {
        return "SELECT COALESCE((SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass(?)), false)";
    }

    @Override
    public boolean isDuplicateKey(SQLException e, String keyName) {
        return "23505".equals(e.getSQLState()) && mentions(e, keyName);
    }

    static boolean mentions(SQLException e, String keyName) {
        String message = e.getMessage();
        return message != null && message.toLowerCase(java.util.Locale.ROOT).contains(keyName.toLowerCase(java.util.Locale.ROOT));
    }

    // capabilities: what the core, the relay and the worker decide by, instead of comparing dialects

    @Override
    public boolean claimsWithSkipLocked() {
        return true;
    }

    @Override
    public boolean returnsUpdatedRows() {
        return true;
    }

    @Override
    public boolean notifiesAtCommit() {
        return true;
    }

    @Override
    public boolean idArrays() {
        return true;
    }

    /**
     * A generic plan cached while the table was small (or never analyzed) can turn the order guard into a
     * scan per candidate as the backlog grows; custom plans follow the table's real size. Asynchronous
     * commit: see {@code RelayBuilder#asyncCommit} ({@code PostgresCrashTest} proves it loses nothing).
     */
    @Override
    public String relayPoolInitSql(boolean asyncCommit) {
        return "SET plan_cache_mode = force_custom_plan" + (asyncCommit ? "; SET synchronous_commit = off" : "");
    }

    /** Asynchronous commit must never reach the application's own transactions. */
    @Override
    public String relayPoolResetSql() {
        return "RESET plan_cache_mode; RESET synchronous_commit; UNLISTEN *";
    }

    /**
     * A claim's statements read an index in id order and stop at their LIMIT; none of them needs a sort.
     * Without sorts the planner cannot choose "read every candidate, filter, sort, take n", which it
     * prefers when a never-analyzed table makes it expect one row. SET LOCAL ends with the transaction.
     */
    @Override
    public String claimPlanSql() {
        return "SET LOCAL enable_sort = off";
    }

    /** The time of the statement's execution, not of its transaction's start. */
    @Override
    public String currentTimeSql() {
        return "clock_timestamp()";
    }

    /** {@code lock_timeout} for the rest of the transaction. */
    @Override
    public String lockTimeoutSql(java.time.Duration timeout) {
        return "SET LOCAL lock_timeout = '" + timeout.toMillis() + "ms'";
    }

    /**
     * From pg_class and the statistics collector (a never-analyzed table: its live-tuple count), summed over a
     * partitioned table's partitions (the parent itself holds nothing).
     */
    @Override
    public String tableSizeSql() {
        // pg_partition_tree lists nothing for a table that is not partitioned: the table itself is added
        return "WITH r AS (SELECT to_regclass(?) AS oid)"
                + " SELECT SUM(pg_total_relation_size(c.oid)), SUM(CASE WHEN c.relkind = 'p' THEN 0"
                + " ELSE GREATEST(c.reltuples::bigint, COALESCE(s.n_live_tup, 0)) END)"
                + " FROM r, pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
                + " WHERE c.oid = r.oid OR c.oid IN (SELECT relid FROM pg_partition_tree(r.oid))"
                + " HAVING count(*) > 0";
    }
}
