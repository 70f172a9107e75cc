package dev.postbox.retention;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;
import dev.postbox.internal.Settings;
import dev.postbox.internal.poll.Transactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The time-partitioned variant of the outbox, for {@link RetentionPolicy.Strategy#PARTITIONS}: the same
 * columns plus {@code partition_time} (when the row was inserted, by the database's clock), RANGE-partitioned
 * on it in contiguous partitions of one width (a day by default; no DEFAULT partition: a write with no
 * partition for its time fails instead of landing where no retention finds it). Retention creates the
 * partitions ahead on every run (the runway) and drops a partition only after moving out every row in it
 * that must stay. event_no stays unique across partitions through the key table {@code <outbox>_key},
 * partitioned in generations as wide as the idempotency window plus one partition: a write of an event_no
 * written less than the idempotency window before (or still in the outbox) is a duplicate, as on the plain
 * outbox, and the keys leave by dropping whole generations, never row by row. The PUBLISHED retention may
 * not exceed the idempotency window (a run refuses it, naming {@code outbox.PUBLISHED}).
 *
 * <p>Costs, to weigh against the batched delete: every write also inserts two key rows (a trigger); a lookup
 * by id or the relay's order guard probes each partition's index (a week of daily partitions: about 15
 * probes instead of one); the keys take room for two to three idempotency windows of writes. In return a
 * day's rows leave in one catalog operation, whatever their number, with no dead tuples for vacuum and no
 * WAL per row.
 *
 * <p>PostgreSQL 15 and MariaDB 10.11; H2 has no partitioned variant.
 * <pre>{@code
 * OutboxPartitions partitions = postbox.outboxPartitions();
 * if (!partitions.partitioned()) {
 *     partitions.convert(Duration.ofDays(1), Duration.ofDays(7)); // the outbox must be empty
 * }
 * }</pre>
 */
public final class OutboxPartitions {

    /** The most partitions a conversion creates (catalog and planning costs grow with their number). */
    public static final int MAX_PARTITIONS = 1000;

    /** Default width of a partition. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofDays(1);

    /** Default idempotency window: the longest PUBLISHED retention the partitioned outbox then allows. */
    public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofDays(7);

    /** One partition: {@code [from, to)} by the database's clock, and what the catalog estimates it holds. */
    public record Partition(String name, Instant from, Instant to, long estimatedRows, long estimatedBytes) {
    }

    private final Settings settings;
    private final PartitionOps ops;
    private final PartitionSweep sweep;

    OutboxPartitions(Settings settings) {
        this.settings = settings;
        this.ops = PartitionOps.of(settings.dialect());
        this.sweep = ops == null ? null : new PartitionSweep(settings.dialect(), ops, settings.tables(), List.of());
    }

    /** Whether the outbox is the partitioned variant (always false on H2). */
    public boolean partitioned() {
        return ops != null && read("reading the catalog", c -> ops.partitioned(c, settings.tables().outbox()));
    }

    /**
     * Turns the empty outbox into the partitioned variant, with partitions of {@code interval} (1 h to 31 days,
     * whole hours that divide a day or whole days) from the start of the current one up to {@code ahead} past the
     * database's clock (at most 366 days), and adds a nullable {@code partition_time} to the archive. Every
     * column, index and comment is kept; new ids continue above every id the outbox and its archive had. Does
     * nothing when the outbox already is partitioned. Run it at installation, before the application writes:
     * writers in this JVM switch over at once; in another process that wrote to the plain outbox the first write
     * after the conversion fails (SQLState 42P10, its transaction rolls back) and the next one works.
     *
     * @throws ValidationException when the outbox holds a row, the database has no partitioned variant, or an
     *                             argument is out of range (nothing is changed)
     */
    public void convert(Duration interval, Duration ahead) {
        convert(interval, ahead, DEFAULT_IDEMPOTENCY_WINDOW, null);
    }

    /**
     * {@link #convert(Duration, Duration)} with the first partition starting at the partition boundary at or
     * before {@code from} (at most 3650 days back), for rows to be loaded with their original insert times
     * (moving an outbox's history over, benchmarks). Null: the current partition.
     */
    public void convert(Duration interval, Duration ahead, Instant from) {
        convert(interval, ahead, DEFAULT_IDEMPOTENCY_WINDOW, from);
    }

    /**
     * {@link #convert(Duration, Duration, Instant)} with an idempotency window (1 h to 366 days, default 7 days): an
     * event_no stays known for at least that long after it was written (and as long as its row is in the outbox),
     * at most about twice as long plus a partition; the PUBLISHED retention may be at most this long. The key
     * table's generations are the window plus one partition wide, rounded up to whole partitions.
     */
    public void convert(Duration interval, Duration ahead, Duration idempotencyWindow, Instant from) {
        if (ops == null) {
            throw new ValidationException("outbox.strategy", settings.dialect().name() + " has no time partitions");
        }
        if (interval == null || interval.compareTo(Duration.ofHours(1)) < 0 || interval.compareTo(Duration.ofDays(31)) > 0
                || interval.toSeconds() % 3600 != 0 || interval.toSeconds() % 86_400 != 0 && 86_400 % interval.toSeconds() != 0) {
            throw new ValidationException("interval", "must be whole hours that divide a day (1, 2, 3, 4, 6, 8, 12 h) or"
                    + " whole days up to 31 (was " + interval + ")");
        }
        if (ahead == null || ahead.compareTo(Duration.ofHours(1)) < 0 || ahead.compareTo(Duration.ofDays(366)) > 0) {
            throw new ValidationException("ahead", "must be between PT1H and P366D (was " + ahead + ")");
        }
        if (idempotencyWindow == null || idempotencyWindow.compareTo(Duration.ofHours(1)) < 0
                || idempotencyWindow.compareTo(Duration.ofDays(366)) > 0) {
            throw new ValidationException("idempotencyWindow", "must be between PT1H and P366D (was " + idempotencyWindow + ")");
        }
        long partitionsPerGeneration = 1 + (idempotencyWindow.toSeconds() + interval.toSeconds() - 1) / interval.toSeconds();
        Duration generation = interval.multipliedBy(partitionsPerGeneration);
        String table = settings.tables().outbox();
        try (Connection c = settings.dataSource().getConnection()) {
            if (ops.partitioned(c, table)) {
                return;
            }
            Instant now = sweep.databaseNow(c);
            Instant first = from == null ? now : from;
            if (first.isAfter(now) || first.isBefore(now.minus(RetentionPolicy.MAX_KEEP))) {
                throw new ValidationException("from", "must be between " + RetentionPolicy.MAX_KEEP + " before the"
                        + " database's clock and it (was " + from + ")");
            }
            long width = interval.toSeconds();
            long start = width % 86_400 == 0 ? first.getEpochSecond() / 86_400 * 86_400 : first.getEpochSecond() / width * width;
            long count = (now.plus(ahead).getEpochSecond() - start + width - 1) / width;
            if (count > MAX_PARTITIONS) {
                throw new ValidationException("ahead", "with partitions of " + interval + " from " + Instant.ofEpochSecond(start)
                        + " this makes " + count + " partitions; at most " + MAX_PARTITIONS);
            }
            List<PartitionOps.Range> ranges = PartitionSweep.following(table, Instant.ofEpochSecond(start), interval,
                    now.plus(ahead), MAX_PARTITIONS);
            try {
                ops.convert(c, settings.tables(), ranges, generation);
                dev.postbox.internal.IdempotentInsert.tablesChanged();
            } catch (SQLException e) {
                if ("55000".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("only an empty outbox")) {
                    throw new ValidationException("outbox", e.getMessage());
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("converting " + table + " to the partitioned variant", e);
        }
    }

    /** The outbox's partitions in range order, with the catalog's estimates (empty when not partitioned). */
    public List<Partition> list() {
        if (ops == null) {
            return List.of();
        }
        String table = settings.tables().outbox();
        return read("listing the partitions", c -> {
            List<Partition> out = new ArrayList<>();
            for (PartitionOps.Range r : ops.partitions(c, table)) {
                long[] size = ops.size(c, table, r);
                out.add(new Partition(r.name(), r.from(), r.to(), size[0], size[1]));
            }
            return out;
        });
    }

    /**
     * How long an event_no stays known at the least (see {@link #convert(Duration, Duration, Duration, Instant)}): the
     * width of the key table's generations less one partition. Null when the outbox is not partitioned.
     */
    public Duration idempotencyWindow() {
        if (ops == null) {
            return null;
        }
        return read("reading the idempotency window", sweep::idempotencyWindow);
    }

    /**
     * How far ahead of the database's clock the partitions reach: writes fail once it is negative. Null when the
     * outbox is not partitioned.
     */
    public Duration runway() {
        if (ops == null) {
            return null;
        }
        return read("reading the runway", c -> {
            List<PartitionOps.Range> ranges = ops.partitions(c, settings.tables().outbox());
            return ranges.isEmpty() ? null : Duration.between(sweep.databaseNow(c), ranges.get(ranges.size() - 1).to());
        });
    }

    /**
     * Creates the partitions missing up to {@code ahead} past the database's clock (as a retention run does),
     * waiting at most {@code lockTimeout} for the table; returns the runway after it.
     */
    public Duration extend(Duration ahead, Duration lockTimeout) {
        if (ops == null) {
            throw new ValidationException("outbox.strategy", settings.dialect().name() + " has no time partitions");
        }
        if (ahead == null || ahead.isNegative() || ahead.compareTo(Duration.ofDays(366)) > 0) {
            throw new ValidationException("ahead", "must be between PT0S and P366D (was " + ahead + ")");
        }
        if (lockTimeout == null || lockTimeout.toMillis() < 1 || lockTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new ValidationException("lockTimeout", "must be between PT0.001S and PT1M (was " + lockTimeout + ")");
        }
        try (Connection c = settings.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                Duration runway = sweep.extend(c, lockTimeout, ahead);
                c.commit();
                return runway;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("outbox partitions: creating partitions ahead", e);
        }
    }

    private <T> T read(String what, Transactions.Work<T> work) {
        try (Connection c = settings.dataSource().getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new PostboxSqlException("outbox partitions: " + what, e);
        }
    }
}
