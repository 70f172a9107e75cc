package dev.postbox.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * What differs between the databases Postbox supports, and nothing else. Detected from
 * {@link DatabaseMetaData} by {@link #detect(Connection)}; pass one of the constants to
 * {@code Postbox.builder(...).dialect(...)} to override. Implementations are immutable and thread-safe.
 */
public interface Dialect {

    /** PostgreSQL 12 and later (tested on 15). */
    Dialect POSTGRESQL = new PostgresDialect();

    /** MySQL 8.0 and later, MariaDB 10.6 and later (tested on MariaDB 10.11). */
    Dialect MYSQL = new MySqlDialect();

    /** H2 2.x. */
    Dialect H2 = new H2Dialect();

    /** Short name used in logs and errors: {@code postgresql}, {@code mysql}, {@code h2}. */
    String name();

    /** Folder under {@code db/postbox/} holding this dialect's versioned DDL files. */
    default String schemaFolder() {
        return name();
    }

    /** SQL text that stands for one JSON parameter in an INSERT's VALUES list. */
    default String jsonParameter() {
        return "?";
    }

    /** Binds a JSON document (or null) to a parameter written with {@link #jsonParameter()}. */
    void bindJson(PreparedStatement ps, int index, String json) throws SQLException;

    /**
     * Binds an instant (or null) to a time column. An instant outside {@link #earliestTime()} ..
     * {@link #latestTime()} is bound as the nearest of the two, so that a far-future retry time or an
     * {@link Instant#MAX} filter bound is stored or compared as "as late as the column goes".
     */
    void bindTime(PreparedStatement ps, int index, Instant instant) throws SQLException;

    /** Latest instant a time column holds, at millisecond precision. */
    Instant latestTime();

    /** Earliest instant a time column holds. */
    Instant earliestTime();

    /** {@code instant} moved into {@link #earliestTime()} .. {@link #latestTime()}; null stays null. */
    default Instant storableTime(Instant instant) {
        if (instant == null) {
            return null;
        }
        if (instant.isAfter(latestTime())) {
            return latestTime();
        }
        return instant.isBefore(earliestTime()) ? earliestTime() : instant;
    }

    /**
     * Length of {@code text} as this database counts it against a {@code VARCHAR(n)} column: Unicode code
     * points on PostgreSQL and MySQL/MariaDB (utf8mb4), where an emoji counts once. {@code text} holds no
     * unpaired surrogates (those are refused before).
     */
    default int textLength(String text) {
        return text.codePointCount(0, text.length());
    }

    /** How {@link #textLength} counts, for error messages: "characters" or a more exact phrase. */
    default String textLengthUnit() {
        return "characters";
    }

    /**
     * Deepest nesting of JSON arrays and objects a JSON column accepts (a top-level array counts 1).
     * Default 1000, the parser's own limit; MariaDB refuses 32 and more.
     */
    default int maxJsonDepth() {
        return 1000;
    }

    /** Whether a JSON column accepts an escaped unpaired surrogate such as {@code "\\ud800"}. */
    default boolean acceptsJsonLoneSurrogateEscapes() {
        return false;
    }

    /**
     * Whether a JSON column accepts the number literal {@code literal} (valid JSON syntax with a fraction
     * or an exponent; plain integers are always accepted).
     */
    default boolean acceptsJsonNumber(String literal) {
        return true;
    }

    /**
     * Largest SQL statement in bytes the server behind {@code connection} accepts, or
     * {@link Long#MAX_VALUE} when the database sets no such limit (MySQL/MariaDB: {@code max_allowed_packet}).
     */
    default long maxStatementBytes(Connection connection) throws SQLException {
        return Long.MAX_VALUE;
    }

    /** Reads an instant (or null) from a time column. */
    Instant readTime(ResultSet rs, String column) throws SQLException;

    /**
     * Text placed after a table name in FROM to make the planner read {@code indexName}, or "" where the
     * planner needs no help. MySQL/MariaDB otherwise walk the primary key for {@code ORDER BY id LIMIT n}
     * and filter most of the history away.
     */
    default String forceIndex(String indexName) {
        return "";
    }

    /**
     * Text appended to a multi-row INSERT so that rows whose key already exists are skipped without an
     * error and the statement returns the inserted keys, or {@code null} when the database cannot do
     * that and Postbox must detect the duplicate-key error instead.
     */
    default String skipDuplicatesReturning(String keyColumns, String returnedColumn) {
        return null;
    }

    /**
     * The distinct values of an indexed {@code column} of {@code table} in order, at most {@code limit}, read by one
     * index probe per value (a loose index scan written as a recursive CTE), so the cost follows the number of
     * values, not of rows.
     */
    default String distinctValuesSql(String table, String column, int limit) {
        return ("WITH RECURSIVE t (v) AS (SELECT MIN(%2$s) FROM %1$s UNION ALL SELECT (SELECT MIN(%2$s) FROM %1$s"
                + " WHERE %2$s > t.v) FROM t WHERE t.v IS NOT NULL) SELECT v FROM t WHERE v IS NOT NULL LIMIT %3$d")
                .formatted(table, column, limit);
    }

    /**
     * SQL that tells (one boolean column) whether the table named by its one parameter is partitioned in a way
     * that moves its unique key out of the table (Postbox's partitioned outbox keeps event_no unique through a
     * key table and a trigger): an INSERT into it skips duplicates by {@code skipDuplicatesReturning(null, ...)},
     * without a conflict target. Null where {@link #skipDuplicatesReturning} is null or there is no such table.
     */
    default String partitionedTableSql() {
        return null;
    }

    /**
     * Whether {@code getGeneratedKeys()} after a multi-row INSERT returns the id the database gave each
     * row, in the order of the rows. Where it does not (MySQL/MariaDB: the server reports only the first id
     * of a statement, LAST_INSERT_ID, and a driver that returns more computes them as if they were
     * consecutive, which {@code innodb_autoinc_lock_mode = 2} does not guarantee), Postbox reads the ids of
     * a multi-row INSERT back by their unique key in the same transaction; a one-row INSERT's id is exact. Only consulted for databases
     * whose {@link #skipDuplicatesReturning} is null.
     */
    default boolean generatedKeysOfEveryRow() {
        return false;
    }

    /**
     * A DELETE of at most {@code ?} rows of {@code table} matching {@code condition}, oldest
     * {@code orderColumn} first, for retention loops that must never hold long locks. The condition's
     * parameters come first, the row limit last. Default: the rows' ids chosen by a limited subquery.
     */
    default String deleteBatch(String table, String condition, String orderColumn) {
        return """
                DELETE FROM %1$s WHERE id IN (
                    SELECT id FROM %1$s WHERE %2$s ORDER BY %3$s LIMIT ?)""".formatted(table, condition, orderColumn);
    }

    /**
     * Whether {@code e} reports a unique-key violation of the constraint or index named {@code keyName}
     * (and not of another key, such as the primary key).
     */
    boolean isDuplicateKey(SQLException e, String keyName);

    /**
     * Detects the dialect of the database behind {@code connection}.
     *
     * @throws IllegalArgumentException for a database Postbox does not support, naming it
     */
    static Dialect detect(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName();
        String lower = product == null ? "" : product.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (lower.contains("mysql") || lower.contains("mariadb")) {
            return MYSQL;
        }
        if (lower.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("unsupported database '" + product + " " + meta.getDatabaseProductVersion()
                + "': Postbox supports PostgreSQL, MySQL/MariaDB and H2; set the dialect explicitly only for one of these");
    }

    // capabilities: what the core, the relay and the worker decide by, instead of comparing dialects

    /**
     * Whether the database normally runs inside the application's own process, started from its JDBC URL
     * (in memory or in a file: H2), so that no migration tool runs against it; the Spring starter's
     * {@code postbox.schema.mode=embedded} installs the tables on such a database only.
     */
    default boolean embedded() {
        return false;
    }

    /**
     * Whether claims on this database take their rows with a locking read that skips the rows other
     * transactions hold ({@code FOR UPDATE SKIP LOCKED}), so that concurrent claimers take different rows
     * instead of waiting for the same ones. Where false (H2), claims within one JVM are serialized and
     * decided by version-conditional updates.
     */
    default boolean claimsWithSkipLocked() {
        return false;
    }

    /**
     * Whether a row lock taken through a secondary index also locks the gap before the index entry until the
     * transaction ends, so that another transaction's insert of a different key into that gap waits for it:
     * InnoDB at REPEATABLE READ (MySQL's and MariaDB's default) does so for an INSERT that meets a duplicate key
     * (a shared next-key lock on the existing entry), and MariaDB 10.11 also for a locking read or an UPDATE that
     * finds an existing row by an equality on every column of a unique key. Two transactions holding such gaps
     * and each inserting into the other's deadlock, whatever their keys. Where true, Postbox's statements in the
     * caller's transaction find an already committed key with a plain (non-locking) read before inserting it,
     * and lock existing rows by primary key only ({@link #forceIndex forceIndex("PRIMARY")} on an UPDATE whose
     * condition also names an indexed status: MariaDB otherwise may scan that status's whole index range,
     * locking every row in it and the gaps around them).
     */
    default boolean locksIndexGaps() {
        return false;
    }

    /**
     * The locking clause of a read, by its unique key, of a row that an INSERT has just found to exist although
     * the transaction's snapshot does not show it, so that the read returns the row's latest committed version.
     * Default {@code FOR UPDATE}. MySQL/MariaDB: {@code LOCK IN SHARE MODE}, the lock the duplicate-key error
     * already holds on that index entry, so that two transactions meeting the same duplicate never both wait to
     * upgrade it (a deadlock); the row itself is then locked by primary key.
     */
    default String duplicateRowLock() {
        return " FOR UPDATE";
    }

    /**
     * Whether an UPDATE can return the rows it changed ({@code UPDATE ... RETURNING}), so that a claim is
     * one statement instead of a locking read followed by an update.
     */
    default boolean returnsUpdatedRows() {
        return false;
    }

    /**
     * Whether a write can wake the relays that listen on this database, with a notification sent in the
     * writer's transaction and delivered at its commit (PostgreSQL's NOTIFY). Where it cannot,
     * {@code notifyOnWrite} is ignored and relays find new events at their next poll.
     */
    default boolean notifiesAtCommit() {
        return false;
    }

    /**
     * Whether a keyset query's ORDER BY should repeat the columns its filter pins to one value (ORDER BY
     * aggregate_type, aggregate_id, id for {@code aggregate_type = ? AND aggregate_id = ?}), for a planner that
     * does not see that equal values need no sorting (H2). Elsewhere they stay out: MariaDB and MySQL cannot drop a
     * pinned string column from the sort when the session's collation is not the column's (MariaDB Connector/J
     * talks utf8mb4_general_ci, MySQL 8 defaults to utf8mb4_0900_ai_ci, Postbox's columns are utf8mb4_bin) and then
     * sort every row of the range, 625,000 of them for {@code type:} on a 5-million-row outbox (six seconds a
     * page instead of one millisecond). PostgreSQL plans it the same either way.
     */
    default boolean sortsByPinnedColumns() {
        return false;
    }

    /**
     * Whether a statement can take a list of ids (or of any column) as one array parameter
     * ({@code id = ANY (?)}, {@code unnest(?::bigint[])}) and join it LATERAL: one cheap plan whatever
     * the list's length, where other databases need an IN list or a UNION of as many branches.
     */
    default boolean idArrays() {
        return false;
    }

    /**
     * Whether a fenced update of many rows is faster as a JDBC batch of single-row updates by primary key
     * than as one statement over an {@code (id, version)} list: H2 evaluates such a list slowly, while a
     * batch in memory is cheap.
     */
    default boolean batchedPrimaryKeyUpdates() {
        return false;
    }

    /**
     * SQL every connection of a relay's own pool runs once (committed by the pool), or null for none.
     *
     * @param asyncCommit whether the relay's own commits may return before their WAL is flushed
     */
    default String relayPoolInitSql(boolean asyncCommit) {
        return null;
    }

    /**
     * SQL that undoes {@link #relayPoolInitSql} and the relay's other session state (PostgreSQL: its LISTEN),
     * run before a relay connection goes back to an application data source that is not a HikariCP pool
     * (over HikariCP the relay opens connections of its own); null when there is nothing to undo.
     */
    default String relayPoolResetSql() {
        return null;
    }

    /**
     * SQL run first in every claim transaction (relay, message worker, any {@code Transactions.claim}), scoped
     * to that transaction, so that a claim's plan follows the index order of its statement whatever the
     * table's statistics say; or null. A backlog arrives in a table filled seconds ago (after a broker
     * outage, a burst), before any ANALYZE: with no statistics PostgreSQL expects one claimable row, reads
     * and sorts every pending row (checking the order guard for each) before the claim's LIMIT applies, and
     * a claim that reads 125 index entries reads 100,000 instead.
     */
    default String claimPlanSql() {
        return null;
    }

    /**
     * An expression for the database's current time at millisecond precision or better, read like a
     * time column ({@link #readTime}): the relay measures its clock's offset against it.
     */
    default String currentTimeSql() {
        return "CURRENT_TIMESTAMP(3)";
    }

    /**
     * SQL that bounds how long the statements of a background housekeeping job (retention) wait for a row
     * lock, run at the start of each of its transactions on its own connection; or null where the database
     * has no such setting. A job that removes old rows must give way to the writers and relays, never queue
     * them behind itself.
     */
    default String lockTimeoutSql(java.time.Duration timeout) {
        return null;
    }

    /**
     * A query of the catalog's estimate of a table's size, with the table's name as its one parameter,
     * answering one row {@code (bytes, rows)}: heap, indexes and TOAST together, and the estimated row
     * count (either may be 0 before the database has looked at the table; either SQL NULL where the catalog
     * keeps no estimate of it, as H2 keeps none of bytes); or null where the catalog keeps no such estimate at
     * all. Reads no row of the table.
     */
    default String tableSizeSql() {
        return null;
    }
}
