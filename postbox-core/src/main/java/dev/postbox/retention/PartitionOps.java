package dev.postbox.retention;

import dev.postbox.jdbc.TableNames;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The database's statements of a time-partitioned outbox ({@link OutboxPartitions}): the partitioned
 * variant keeps every column of the outbox plus {@code partition_time} (the database's clock when the row
 * was inserted, UTC), the range key; the primary key becomes {@code (id, partition_time)}, and the unique
 * key on {@code event_no}, which a partitioned table cannot enforce across partitions, moves to the key
 * table {@code <outbox>_key (event_no, bucket)}, filled by an insert trigger of the outbox.
 *
 * <p>The key table is partitioned in generations: ranges {@code G} wide (the idempotency window plus one
 * partition, in whole partitions), aligned with the outbox's first partition. A row written at
 * {@code partition_time} in generation {@code g} has two key rows, {@code (event_no, g)} and
 * {@code (event_no, g - G)}, each unique in its key partition. So two writes of one event_no less than
 * {@code G} apart share a generation and meet in its unique index, committed or not, whatever the isolation
 * level; every row of the outbox that retention keeps on schedule is younger than that (a PUBLISHED retention
 * longer than the window is refused). No write reads the older generations: a write looks up nothing, so it
 * costs two index inserts whatever the number of partitions. A row whose event_no is known is not inserted:
 * on PostgreSQL the trigger skips it (the INSERT's {@code ON CONFLICT DO NOTHING} reports it as a duplicate),
 * elsewhere it fails the statement with a duplicate-key error on {@code uk_event_no}, as the plain outbox
 * does. A generation is dropped, a catalog operation like a partition's, once no row of the outbox and no
 * write of now can have a key row in it: the keys never leave row by row.
 *
 * <p>A partition covers {@code [from, to)}; partitions are contiguous, created ahead, there is no DEFAULT
 * partition. Moving a row between partitions ({@link #move}) is the only way its partition_time may change:
 * its key rows follow it and no other UPDATE of partition_time is accepted.
 *
 * <p>Unless said otherwise a method runs inside the caller's transaction on {@code c}; methods that say
 * "autocommit" run their own statements on a connection in autocommit mode and leave it so. The methods that
 * name a {@code table} work on the outbox and on its key table alike.
 */
interface PartitionOps {

    /** The statements for {@code dialect}'s database, or null where Postbox has no partitioned variant (H2).
     * "mysql" is MariaDB 10.7+ (CONVERT PARTITION); MySQL 8 has no such statement. */
    static PartitionOps of(dev.postbox.jdbc.Dialect dialect) {
        return switch (dialect.name()) {
            case "postgresql" -> new PostgresPartitions(dialect);
            case "mysql" -> new MySqlPartitions(dialect);
            default -> null;
        };
    }

    /** One partition: its name (the table's name, {@code _p}, the UTC start) and range {@code [from, to)}. */
    record Range(String name, Instant from, Instant to) {
        Duration width() {
            return Duration.between(from, to);
        }
    }

    /** A row a partition must not lose: not removable by the policy (see {@link PartitionSweep}). */
    record Row(long id, int status, Instant updated, String aggregateType, String aggregateId) {
    }

    /** Whether {@code table} is the partitioned variant. */
    boolean partitioned(Connection c, String table) throws SQLException;

    /**
     * Turns the empty outbox of {@code tables} into the partitioned variant with the partitions
     * {@code ranges} (contiguous, in order), creates the key table in generations of {@code generation} (a
     * whole number of partitions) and the triggers, and adds a nullable
     * {@code partition_time} to the outbox archive. Keeps every column, default, index and comment; new ids
     * continue above every id the outbox and its archive ever had. Autocommit: one transaction where the
     * database's DDL is transactional. Throws when the outbox holds a row.
     */
    void convert(Connection c, TableNames tables, List<Range> ranges, Duration generation) throws SQLException;

    /** The partitions of {@code table} in range order (empty when it is not partitioned). */
    List<Range> partitions(Connection c, String table) throws SQLException;

    /** Creates {@code range} after the last partition of {@code table}, waiting at most {@code lockTimeout}. */
    void create(Connection c, String table, Range range, Duration lockTimeout) throws SQLException;

    /** The catalog's estimate of the partition's rows and bytes (heap and indexes): {@code {rows, bytes}}, -1 unknown. */
    long[] size(Connection c, String table, Range range) throws SQLException;

    /**
     * Up to {@code limit} rows of the partition that are not PUBLISHED (status ≠ 2), locked FOR UPDATE
     * without waiting (a row another transaction holds fails the statement: the partition is retried on the
     * next run), found through the status index (never a scan of the partition).
     */
    List<Row> unpublished(Connection c, String table, Range range, int limit) throws SQLException;

    /**
     * Moves the rows {@code ids} of the partition to the partition of the database's clock now, keeping every
     * other column; their key-table rows follow. Returns the rows moved.
     */
    int move(Connection c, String table, Range range, List<Long> ids) throws SQLException;

    /**
     * Takes the partition out of {@code table} (afterwards no statement on the outbox sees or changes its
     * rows) and returns the name of the standalone table that now holds them. Autocommit. Waits at most
     * {@code lockTimeout} for the table's lock.
     */
    String detach(Connection c, String table, Range range, Duration lockTimeout) throws SQLException;

    /** Up to {@code limit} rows of the detached table {@code detached} that are not PUBLISHED. */
    List<Row> unpublishedDetached(Connection c, String detached, int limit) throws SQLException;

    /**
     * Inserts the rows {@code ids} of the detached table back into {@code table} (in the partition of now,
     * every other column kept, their key rows kept) and deletes them from the detached table; returns how many.
     */
    int restore(Connection c, String table, String detached, List<Long> ids) throws SQLException;

    /**
     * The indexes of the detached table that can be dropped one at a time before it, each freeing files of its own;
     * empty where an index lives in the table's file (InnoDB).
     */
    default List<String> detachedIndexes(Connection c, String detached) throws SQLException {
        return List.of();
    }

    /** Drops an index {@link #detachedIndexes} named. */
    default void dropIndex(Connection c, String index) throws SQLException {
        throw new UnsupportedOperationException("no separate index files");
    }

    /** Whether the partition holds no row (one index probe). */
    boolean empty(Connection c, String table, Range range) throws SQLException;

    /**
     * Merges the consecutive partitions {@code ranges} into the first of them (its name, their whole range), or
     * does nothing where the database has no cheap merge (then a drop of each is as cheap). Callers pass partitions
     * they found empty; a row that came meanwhile is kept by the merge. Autocommit; waits at most
     * {@code lockTimeout} for the table's lock.
     */
    default void mergeEmpty(Connection c, String table, List<Range> ranges, Duration lockTimeout) throws SQLException {
        throw new UnsupportedOperationException("no merge of partitions");
    }

    /** Whether {@link #mergeEmpty} merges. */
    default boolean merges() {
        return false;
    }

    /** Drops the detached table. */
    void dropDetached(Connection c, String detached) throws SQLException;

    /**
     * A detach that did not finish (a process died mid-way), to finish before anything else: the partition's
     * standalone table name, or null. Autocommit; a detach to complete waits at most {@code lockTimeout}.
     */
    String pendingDetach(Connection c, String table, Duration lockTimeout) throws SQLException;

    /** The key table of the partitioned outbox {@code table}. */
    static String keyTable(String table) {
        return table + "_key";
    }

    /**
     * The key generations for the outbox partitions {@code ranges}: {@code generation} wide from one generation
     * before the first partition's start until they cover the last partition.
     */
    static List<Range> keyRanges(String table, List<Range> ranges, Duration generation) {
        return PartitionSweep.following(keyTable(table), ranges.get(0).from().minus(generation), generation,
                ranges.get(ranges.size() - 1).to(), Integer.MAX_VALUE);
    }
}
