package dev.postbox.retention;

import dev.postbox.common.PostboxException;
import dev.postbox.internal.poll.Transactions;
import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;
import dev.postbox.outbox.OutboxStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Retention of a time-partitioned outbox ({@link OutboxPartitions}). A run first finishes what an earlier
 * run left half done (a detach that did not complete, a detached partition not yet dropped), then keeps the
 * runway (partitions created ahead up to the database's clock plus {@code ahead}), then drops the due
 * partitions oldest first, each with the key partitions of its rows (the keys leave as the rows do: by a catalog
 * operation, never row by row).
 *
 * <p>A partition is due when its whole range is older than the PUBLISHED retention by the database's clock
 * (a row's age is its insert time: PUBLISHED rows go with their partition). Every other row of a due
 * partition is decided one by one, as the batched delete decides it: CANCELLED and DEAD rows older than
 * their rule (by {@code update_time}) are deleted, a DEAD row still holding back a later event of its
 * aggregate is kept, and every row that is kept (unfinished, or a status without a due rule) is moved to
 * the partition of now with its idempotency key. Those rows are found through the status index and locked
 * without waiting: one held by a relay or a person makes the run leave the partition for the next run.
 * After the detach nobody can change the detached table, so it is searched once more for rows that changed
 * after they were checked (a person retried a DEAD event meanwhile): they are put back before the table is
 * dropped. No row that must stay is ever dropped; a process dying at any point leaves every row either in
 * the outbox or in a detached table the next run finishes.
 */
final class PartitionSweep {

    private static final Logger log = LoggerFactory.getLogger(PartitionSweep.class);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyyMMddHH").withZone(ZoneOffset.UTC);
    /** Partitions one run creates at most (a year of days): a runway far behind is caught up over runs. */
    static final int MAX_CREATED_PER_RUN = 400;
    /** Empty due partitions one merge takes at most. */
    static final int MAX_MERGED = 100;

    /** What a run did: rows (catalog estimate) and partitions dropped, why it stopped, the runway after it. */
    record Result(long removed, int partitions, RetentionReport.Stop stop, Duration runway, Duration longestDrop,
                  Duration longestDetach) {
    }

    private final Dialect dialect;
    private final PartitionOps ops;
    private final String table;
    private final Duration publishedKeep;
    private final Duration cancelledKeep;
    private final Duration deadKeep;
    private final String holdsBackSql;

    PartitionSweep(Dialect dialect, PartitionOps ops, TableNames tables, List<RetentionPolicy.Rule> rules) {
        this.dialect = dialect;
        this.ops = ops;
        this.table = tables.outbox();
        this.publishedKeep = keep(rules, OutboxStatus.PUBLISHED);
        this.cancelledKeep = keep(rules, OutboxStatus.CANCELLED);
        this.deadKeep = keep(rules, OutboxStatus.DEAD);
        this.holdsBackSql = Sweep.holdsBackSql(table);
    }

    private static Duration keep(List<RetentionPolicy.Rule> rules, OutboxStatus status) {
        return rules.stream().filter(r -> status.name().equals(r.status())).map(RetentionPolicy.Rule::keep).findFirst()
                .orElse(null);
    }

    /** The name of the partition starting at {@code from}: whole days {@code _pYYYYMMDD}, else {@code _pYYYYMMDDHH}. */
    static String partitionName(String table, Instant from, Duration width) {
        boolean days = width.toSeconds() % 86_400 == 0 && from.getEpochSecond() % 86_400 == 0;
        return table + "_p" + (days ? DAY : HOUR).format(from);
    }

    /** The partitions from {@code last}'s end on, each as wide as {@code width}, until one reaches {@code until}. */
    static List<PartitionOps.Range> following(String table, Instant from, Duration width, Instant until, int max) {
        List<PartitionOps.Range> out = new ArrayList<>();
        Instant start = from;
        while (start.isBefore(until) && out.size() < max) {
            Instant end = start.plus(width);
            out.add(new PartitionOps.Range(partitionName(table, start, width), start, end));
            start = end;
        }
        return out;
    }

    /** The database's clock. */
    Instant databaseNow(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT " + dialect.currentTimeSql()
                + " AS now_time")) {
            rs.next();
            return dialect.readTime(rs, "now_time");
        }
    }

    /**
     * One run on {@code pool} (not auto-commit), within {@code budget} rows (catalog estimates of the dropped
     * partitions count against it) while {@code go} says so; {@code postboxNow} ages CANCELLED and DEAD rows.
     */
    Result run(DataSource pool, Duration lockTimeout, Duration ahead, int batchSize, long budget, BooleanSupplier go,
               java.util.function.LongConsumer pause, Instant postboxNow) {
        String what = "retention of the partitions of " + table;
        long removed = 0;
        int dropped = 0;
        long longestDrop = 0;
        long longestDetach = 0;
        RetentionReport.Stop stop = RetentionReport.Stop.COMPLETE;
        // 1. what an earlier run left half done (a detach that timed out waiting, a process that died)
        for (int i = 0; i < 16; i++) {
            String left;
            try (Connection c = pool.getConnection()) {
                left = ops.pendingDetach(c, table, lockTimeout);
            } catch (SQLException e) {
                if (lockNotAvailable(e)) {
                    log.info("Retention: {} was busy; the detach an earlier run began waits for the next run ({})", table,
                            e.getMessage());
                    return new Result(0, 0, RetentionReport.Stop.LOCKED, extend(pool, lockTimeout, ahead), Duration.ZERO,
                            Duration.ZERO);
                }
                throw new dev.postbox.common.PostboxSqlException(what + ": finishing a detach", e);
            }
            if (left == null) {
                break;
            }
            log.info("Retention: finishing the detached partition {} of {} an earlier run left", left, table);
            finish(pool, left, batchSize, pause);
            dropped++;
        }
        // 2. the runway (and the retention the key generations allow)
        Duration runway = extend(pool, lockTimeout, ahead);
        tx(pool, what, c -> {
            checkWindow(c);
            return null;
        });
        // 3. due partitions, oldest first
        List<PartitionOps.Range> ranges = tx(pool, what, c -> ops.partitions(c, table));
        Instant now = tx(pool, what, this::databaseNow);
        Instant dueBefore = now.minus(publishedKeep);
        for (int i = 0; i < ranges.size() - 1; i++) {
            PartitionOps.Range due = ranges.get(i);
            if (due.to().isAfter(dueBefore)) {
                break;
            }
            if (budget <= 0) {
                stop = RetentionReport.Stop.BUDGET;
                break;
            }
            if (!go.getAsBoolean()) {
                stop = RetentionReport.Stop.TIME;
                break;
            }
            // a run of empty due partitions (retention catching up) leaves as one where the database can merge them
            int last = i;
            while (last + 1 < ranges.size() - 1 && !ranges.get(last + 1).to().isAfter(dueBefore)) {
                last++;
            }
            int partitions = 1;
            if (last > i) {
                partitions = mergeEmpty(pool, ranges.subList(i, last + 1), lockTimeout);
                due = new PartitionOps.Range(due.name(), due.from(), ranges.get(i + partitions - 1).to());
                i += partitions - 1;
            }
            PartitionOps.Range r = due;
            long[] size = tx(pool, what, c -> ops.size(c, table, r));
            if (!clearStragglers(pool, r, batchSize, postboxNow, go, pause)) {
                stop = RetentionReport.Stop.LOCKED;
                break;
            }
            String detached;
            long dropStart = System.nanoTime();
            try (Connection c = pool.getConnection()) {
                detached = ops.detach(c, table, r, lockTimeout);
            } catch (SQLException e) {
                if (lockNotAvailable(e)) {
                    log.info("Retention: {} was busy, {} stays until the next run ({})", table, r.name(), e.getMessage());
                    stop = RetentionReport.Stop.LOCKED;
                    break;
                }
                throw new dev.postbox.common.PostboxSqlException(what + ": detaching " + r.name(), e);
            }
            long detachedAt = System.nanoTime();
            longestDetach = Math.max(longestDetach, detachedAt - dropStart);
            finish(pool, detached, batchSize, pause);
            dropKeys(pool, lockTimeout, pause);
            long took = System.nanoTime() - dropStart;
            longestDrop = Math.max(longestDrop, took);
            dropped += partitions;
            long rows = Math.max(0, size[0]);
            removed += rows;
            budget -= rows;
            log.info("Retention: dropped partition {} of {} ([{}, {}), about {} rows, {} bytes) in {} ms (detach {} ms,"
                    + " final check and drop of it and its keys {} ms)", r.name(), table, r.from(), r.to(), rows, size[1], took / 1_000_000,
                    (detachedAt - dropStart) / 1_000_000, (System.nanoTime() - detachedAt) / 1_000_000);
            // the detach holds the outbox's lock for a moment (MariaDB: its metadata lock, which writers queue
            // behind): several due partitions in a row (retention catching up) leave as many moments apart
            pause.accept(detachedAt - dropStart);
        }
        // 4. key partitions an earlier run left (each drop above took its own along)
        dropKeys(pool, lockTimeout, pause);
        warnWhenBehind(pool, what);
        return new Result(removed, dropped, stop, runway, Duration.ofNanos(longestDrop), Duration.ofNanos(longestDetach));
    }

    /**
     * Merges the leading empty partitions of {@code run} (consecutive due partitions) into its first, where the
     * database can ({@link PartitionOps#mergeEmpty}); returns how many partitions the first now spans (1: none was
     * merged). A merge that cannot have its lock in time merges nothing.
     */
    private int mergeEmpty(DataSource pool, List<PartitionOps.Range> run, Duration lockTimeout) {
        if (!ops.merges()) {
            return 1;
        }
        try (Connection c = pool.getConnection()) {
            int n = 0;
            while (n < run.size() && n < MAX_MERGED && ops.empty(c, table, run.get(n))) {
                n++;
            }
            if (n < 2) {
                return 1;
            }
            ops.mergeEmpty(c, table, run.subList(0, n), lockTimeout);
            log.info("Retention: merged {} empty due partitions of {} ({} to {}) into one to drop them at once", n, table,
                    run.get(0).name(), run.get(n - 1).name());
            return n;
        } catch (SQLException e) {
            if (lockNotAvailable(e)) {
                return 1;
            }
            throw new dev.postbox.common.PostboxSqlException("retention of the partitions of " + table
                    + ": merging empty due partitions", e);
        }
    }

    /**
     * Drops the key generations ({@link PartitionOps}) before the one before the generation of the oldest outbox
     * partition's start: a row still in the outbox, or written into any of its partitions (a transaction that began
     * long ago, the mover), has its key rows there or later. Also drops any detached key partition an earlier run
     * left. A detach, then a drop in a transaction of its own each; a key partition still locked is left for the
     * next run.
     */
    void dropKeys(DataSource pool, Duration lockTimeout, java.util.function.LongConsumer pause) {
        String keys = PartitionOps.keyTable(table);
        String what = "retention of the partitions of " + keys;
        try {
            for (int i = 0; i < 16; i++) {
                String left;
                try (Connection c = pool.getConnection()) {
                    left = ops.pendingDetach(c, keys, lockTimeout);
                }
                if (left == null) {
                    break;
                }
                drop(pool, left, pause);
            }
            List<PartitionOps.Range> ranges = tx(pool, what, c -> ops.partitions(c, table));
            if (ranges.isEmpty()) {
                return;
            }
            List<PartitionOps.Range> generations = tx(pool, what, c -> ops.partitions(c, keys));
            Instant oldest = ranges.get(0).from();
            Instant keep = null;
            for (PartitionOps.Range g : generations) {
                if (g.to().isAfter(oldest)) {
                    keep = g.from().minus(g.width());
                    break;
                }
            }
            if (keep == null) {
                return;
            }
            for (PartitionOps.Range r : generations) {
                if (r.to().isAfter(keep)) {
                    break;
                }
                String detached;
                try (Connection c = pool.getConnection()) {
                    detached = ops.detach(c, keys, r, lockTimeout);
                }
                drop(pool, detached, pause);
            }
        } catch (SQLException e) {
            if (lockNotAvailable(e)) {
                log.info("Retention: {} was busy, its due partitions stay until the next run ({})", keys, e.getMessage());
                return;
            }
            throw new dev.postbox.common.PostboxSqlException(what + ": dropping the partitions of dropped keys", e);
        }
    }

    private void drop(DataSource pool, String detached, java.util.function.LongConsumer pause) {
        long t0 = System.nanoTime();
        tx(pool, "retention: dropping the detached key partition " + detached, c -> {
            ops.dropDetached(c, detached);
            return null;
        });
        pause.accept(System.nanoTime() - t0);
    }

    /**
     * Warns when the oldest partition began a whole key generation ago or earlier: a row in it may be older than the
     * idempotency window, so its event_no may be written again (retention is behind: partitions it could not drop).
     */
    private void warnWhenBehind(DataSource pool, String what) {
        tx(pool, what, c -> {
            List<PartitionOps.Range> generations = ops.partitions(c, PartitionOps.keyTable(table));
            List<PartitionOps.Range> ranges = ops.partitions(c, table);
            if (!generations.isEmpty() && !ranges.isEmpty()) {
                Instant now = databaseNow(c);
                Duration generation = generations.get(0).width();
                if (!ranges.get(0).from().isAfter(now.minus(generation))) {
                    log.warn("Retention: the oldest partition {} of {} began {} ago, a key generation ({}) or more: the"
                            + " event_nos of its rows are past the idempotency window and may be written again until"
                            + " retention drops it", ranges.get(0).name(), table, Duration.between(ranges.get(0).from(), now),
                            generation);
                }
            }
            return null;
        });
    }

    /**
     * The idempotency window of the partitioned outbox: how long an event_no stays known at the least, the width of
     * its key generations less one partition; null when it is not partitioned.
     */
    Duration idempotencyWindow(Connection c) throws SQLException {
        List<PartitionOps.Range> generations = ops.partitions(c, PartitionOps.keyTable(table));
        List<PartitionOps.Range> ranges = ops.partitions(c, table);
        if (generations.isEmpty() || ranges.isEmpty()) {
            return null;
        }
        // the newest partition has the width the outbox was converted with (a merge of empty due ones widens old ones)
        return generations.get(0).width().minus(ranges.get(ranges.size() - 1).width());
    }

    /**
     * Refuses a PUBLISHED retention longer than the idempotency window: a partition stays up to one partition
     * longer than the retention, and its rows' event_nos must stay known as long.
     */
    private void checkWindow(Connection c) throws SQLException {
        Duration window = idempotencyWindow(c);
        if (window != null && publishedKeep.compareTo(window) > 0) {
            throw new dev.postbox.common.ValidationException("outbox.PUBLISHED", "must be at most " + window + " for the"
                    + " partitioned " + table + " (was " + publishedKeep + "): its event_nos stay known for " + window
                    + ", the idempotency window it was converted with; convert it with a longer one"
                    + " (OutboxPartitions.convert(interval, ahead, idempotencyWindow, from))");
        }
    }

    /** The partitions a run would drop now, with the catalog's estimate of their rows and bytes; changes nothing. */
    List<RetentionPlan.Partition> due(DataSource pool) {
        return tx(pool, "retention of the partitions of " + table + ": planning", c -> {
            checkWindow(c);
            Instant dueBefore = databaseNow(c).minus(publishedKeep);
            List<PartitionOps.Range> ranges = ops.partitions(c, table);
            List<RetentionPlan.Partition> out = new ArrayList<>();
            for (int i = 0; i < ranges.size() - 1 && !ranges.get(i).to().isAfter(dueBefore); i++) {
                PartitionOps.Range r = ranges.get(i);
                long[] size = ops.size(c, table, r);
                out.add(new RetentionPlan.Partition(r.name(), r.from(), r.to(), size[0], size[1]));
            }
            return out;
        });
    }

    /** Creates partitions up to the database's clock plus {@code ahead}; returns the runway after that. */
    Duration extend(DataSource pool, Duration lockTimeout, Duration ahead) {
        return tx(pool, "retention of the partitions of " + table + ": creating partitions ahead",
                c -> extend(c, lockTimeout, ahead));
    }

    /** {@link #extend(DataSource, Duration, Duration)} in the caller's transaction on {@code c}. */
    Duration extend(Connection c, Duration lockTimeout, Duration ahead) throws SQLException {
        List<PartitionOps.Range> ranges = ops.partitions(c, table);
        if (ranges.isEmpty()) {
            throw new PostboxException(table + " is not partitioned: the partitions strategy needs the partitioned"
                    + " variant (Postbox.outboxPartitions().convert(...) on the empty outbox)");
        }
        Instant now = databaseNow(c);
        PartitionOps.Range last = ranges.get(ranges.size() - 1);
        List<PartitionOps.Range> next = following(table, last.to(), last.width(), now.plus(ahead), MAX_CREATED_PER_RUN);
        for (PartitionOps.Range r : next) {
            ops.create(c, table, r, lockTimeout);
        }
        // the key partitions follow the outbox's (a run that died between the two left them behind)
        String keys = PartitionOps.keyTable(table);
        List<PartitionOps.Range> keyRanges = ops.partitions(c, keys);
        if (keyRanges.isEmpty()) {
            throw new PostboxException(keys + " has no partitions: the partitioned outbox " + table + " is incomplete"
                    + " (convert it again from empty)");
        }
        Instant end = next.isEmpty() ? last.to() : next.get(next.size() - 1).to();
        PartitionOps.Range lastGeneration = keyRanges.get(keyRanges.size() - 1);
        for (PartitionOps.Range r : following(keys, lastGeneration.to(), lastGeneration.width(), end,
                MAX_CREATED_PER_RUN)) {
            ops.create(c, keys, r, lockTimeout);
        }
        if (!next.isEmpty()) {
            log.info("Retention: created {} partitions of {} up to {}", next.size(), table, next.get(next.size() - 1).to());
            last = next.get(next.size() - 1);
        }
        return Duration.between(now, last.to());
    }

    /**
     * Deletes the due CANCELLED and DEAD rows of the partition and moves every other unpublished row out of it,
     * a batch per transaction; false when a row was locked by someone else (the partition waits for a later run).
     */
    private boolean clearStragglers(DataSource pool, PartitionOps.Range r, int batchSize, Instant postboxNow,
                                    BooleanSupplier go, java.util.function.LongConsumer pause) {
        while (true) {
            long t0 = System.nanoTime();
            Integer done;
            try {
                done = tx(pool, "retention of " + r.name() + ": rows to keep", c -> {
                    List<PartitionOps.Row> rows = ops.unpublished(c, table, r, batchSize);
                    List<Long> delete = new ArrayList<>();
                    List<Long> keep = new ArrayList<>();
                    for (PartitionOps.Row row : rows) {
                        (removable(c, row, postboxNow) ? delete : keep).add(row.id());
                    }
                    delete(c, delete);
                    int moved = ops.move(c, table, r, keep);
                    if (moved != keep.size()) {
                        throw new SQLException("moved " + moved + " of " + keep.size() + " locked rows out of " + r.name());
                    }
                    if (!keep.isEmpty()) {
                        log.info("Retention: moved {} unfinished or kept rows out of {} before dropping it", moved, r.name());
                    }
                    return rows.size();
                });
            } catch (dev.postbox.common.PostboxSqlException e) {
                if (e.getCause() instanceof SQLException s && lockNotAvailable(s)) {
                    log.info("Retention: a row of {} is held by another transaction; the partition waits for the next run",
                            r.name());
                    return false;
                }
                throw e;
            }
            if (done < batchSize) {
                return true;
            }
            if (!go.getAsBoolean()) {
                return false;
            }
            pause.accept(System.nanoTime() - t0);
        }
    }

    /**
     * Puts back what changed after the check, then drops the detached table. Nothing writes to a detached table, so
     * its storage may go in steps: where the database keeps an index in files of its own (PostgreSQL), the indexes
     * are dropped one per transaction with the duty cycle's pause between, then the table, so that the file
     * removals of a large partition come as several short I/O bursts instead of one long one.
     */
    private void finish(DataSource pool, String detached, int batchSize, java.util.function.LongConsumer pause) {
        while (true) {
            boolean checked = tx(pool, "retention: checking the detached partition " + detached, c -> {
                List<PartitionOps.Row> rows = ops.unpublishedDetached(c, detached, batchSize);
                if (!rows.isEmpty()) {
                    List<Long> ids = rows.stream().map(PartitionOps.Row::id).toList();
                    int restored = ops.restore(c, table, detached, ids);
                    log.warn("Retention: {} rows of {} changed after they were checked; put back into {}", restored,
                            detached, table);
                }
                return rows.size() < batchSize;
            });
            if (checked) {
                break;
            }
        }
        for (String index : tx(pool, "retention: the indexes of " + detached, c -> ops.detachedIndexes(c, detached))) {
            long t0 = System.nanoTime();
            tx(pool, "retention: dropping " + index + " of the detached partition " + detached, c -> {
                ops.dropIndex(c, index);
                return null;
            });
            pause.accept(System.nanoTime() - t0);
        }
        tx(pool, "retention: dropping the detached partition " + detached, c -> {
            ops.dropDetached(c, detached);
            return null;
        });
    }

    /** One READ COMMITTED transaction (InnoDB then locks the rows it reads and no gaps). */
    private static <T> T tx(DataSource pool, String what, Transactions.Work<T> work) {
        return Transactions.inTransaction(pool, what, c -> {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return work.run(c);
        });
    }

    /** Whether the policy removes this row now (a CANCELLED or DEAD row older than its rule, holding nothing back). */
    private boolean removable(Connection c, PartitionOps.Row row, Instant postboxNow) throws SQLException {
        Duration keep = row.status() == OutboxStatus.CANCELLED.code() ? cancelledKeep
                : row.status() == OutboxStatus.DEAD.code() ? deadKeep : null;
        if (keep == null || row.updated() == null || !row.updated().isBefore(postboxNow.minus(keep))) {
            return false;
        }
        if (row.status() != OutboxStatus.DEAD.code()) {
            return true;
        }
        try (PreparedStatement ps = c.prepareStatement(holdsBackSql)) {
            ps.setString(1, row.aggregateType());
            ps.setString(2, row.aggregateId());
            ps.setLong(3, row.id());
            try (ResultSet rs = ps.executeQuery()) {
                return !rs.next();
            }
        }
    }

    private void delete(Connection c, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE id IN ("
                + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                ps.setLong(i + 1, ids.get(i));
            }
            int n = ps.executeUpdate();
            if (n != ids.size()) {
                throw new SQLException("deleted " + n + " of " + ids.size() + " locked rows of " + table);
            }
        }
    }

    /** A lock wait that timed out or a NOWAIT lock that was held (PostgreSQL 55P03; MySQL/MariaDB 1205, 3572). */
    static boolean lockNotAvailable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && ("55P03".equals(s.getSQLState()) || s.getErrorCode() == 1205
                    || s.getErrorCode() == 3572)) {
                return true;
            }
        }
        return false;
    }
}
