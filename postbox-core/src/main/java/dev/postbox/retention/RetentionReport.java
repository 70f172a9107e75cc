package dev.postbox.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What one retention run removed.
 *
 * @param started  when the run began (Postbox clock)
 * @param elapsed  how long it took
 * @param tables   per table with rules, in policy order (empty when another instance holds the lease)
 * @param heldBy   the instance that holds the retention lease when this one did not run, else null
 */
public record RetentionReport(Instant started, Duration elapsed, List<TableRun> tables, String heldBy) {

    /** Why a table's walk ended. */
    public enum Stop {
        /** It reached rows younger than every cutoff, or the end of the table: nothing more to remove now. */
        COMPLETE,
        /** The run's row budget was spent; the next run resumes where this one stopped. */
        BUDGET,
        /** The run's time budget was spent; the next run resumes where this one stopped. */
        TIME,
        /** The retention lease was lost mid-run (this instance stalled past it): another instance goes on. */
        LEASE_LOST,
        /**
         * A due partition could not be dropped now: a row it must keep was locked by another transaction, or the
         * table's lock was not granted within the lock timeout. The next run tries again.
         */
        LOCKED
    }

    /**
     * One table's part of a run.
     *
     * @param removed    rows removed (deleted, or moved to the archive when {@code strategy} is ARCHIVE; with
     *                   PARTITIONS the catalog's estimate of the dropped partitions' rows)
     * @param batches    transactions that removed at least one row (PARTITIONS: 0)
     * @param windows    primary-key windows read (PARTITIONS: 0)
     * @param partitions partitions dropped (0 unless PARTITIONS)
     * @param longestDrop the longest time one partition took from its detach to its drop (its indexes, its rows'
     *                    key generations that went with it and the duty cycle's pauses between them included),
     *                    stragglers not included (PARTITIONS; else zero)
     * @param longestDetach the longest time one partition took to leave the outbox (the detach: from then on no
     *                    statement on the outbox sees its rows; the files are removed after it) (PARTITIONS; else zero)
     */
    public record TableRun(RetentionTable table, RetentionPolicy.Strategy strategy, long removed, int batches,
                           int windows, int partitions, Duration longestDrop, Duration longestDetach, Stop stop) {
    }

    public RetentionReport {
        tables = List.copyOf(tables);
    }

    /** Rows removed from every table. */
    public long removed() {
        return tables.stream().mapToLong(TableRun::removed).sum();
    }

    /** Whether every table's walk completed (no budget ran out); false when this instance did not run. */
    public boolean complete() {
        return ran() && tables.stream().allMatch(t -> t.stop() == Stop.COMPLETE);
    }

    /** Whether this instance ran (it held the retention lease). */
    public boolean ran() {
        return heldBy == null;
    }

    /** The part of {@code table}, or null when the policy has no rule for it. */
    public TableRun table(RetentionTable table) {
        return tables.stream().filter(t -> t.table() == table).findFirst().orElse(null);
    }
}
