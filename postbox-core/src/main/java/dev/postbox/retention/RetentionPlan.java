package dev.postbox.retention;

import java.util.List;

/**
 * What a retention run would remove now, found without removing anything ({@link Retention#plan()}).
 *
 * @param entries    per table and status with rows to remove, in policy order (a partitioned outbox's rows are
 *                   in {@code partitions})
 * @param partitions the outbox partitions a run would drop, oldest first (the partitions strategy only)
 */
public record RetentionPlan(List<Entry> entries, List<Partition> partitions) {

    /**
     * A partition a run would drop, with what the catalog estimates it holds; the rows in it that must stay
     * (unfinished, or kept by the policy) are moved out first and are not removed.
     */
    public record Partition(String name, java.time.Instant from, java.time.Instant to, long estimatedRows,
                            long estimatedBytes) {
    }

    /**
     * Rows of {@code table} in {@code status} ({@code ANY} for the consume log) a run would remove.
     *
     * @param estimatedBytes the rows times the table's average row size from the database's catalog (heap,
     *                       indexes and TOAST), or -1 where the catalog has no estimate (H2, a table never
     *                       looked at)
     */
    public record Entry(RetentionTable table, String status, RetentionPolicy.Strategy strategy, long rows,
                        long estimatedBytes) {
    }

    public RetentionPlan {
        entries = List.copyOf(entries);
        partitions = List.copyOf(partitions);
    }

    /** Rows a run would remove from every table (partitions by the catalog's estimate). */
    public long rows() {
        return entries.stream().mapToLong(Entry::rows).sum()
                + partitions.stream().mapToLong(p -> Math.max(0, p.estimatedRows())).sum();
    }

    /** Rows a run would remove from {@code table} in {@code status} (0 when none). */
    public long rows(RetentionTable table, String status) {
        return entries.stream().filter(e -> e.table() == table && e.status().equals(status)).mapToLong(Entry::rows).sum();
    }
}
