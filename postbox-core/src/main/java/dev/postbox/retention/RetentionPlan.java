package dev.postbox.retention;

import java.util.List;

/**
 * What a retention run would remove now, found without removing anything ({@link Retention#plan()}).
 *
 * @param entries per table and status with rows to remove, in policy order
 */
public record RetentionPlan(List<Entry> entries) {

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
    }

    /** Rows a run would remove from every table. */
    public long rows() {
        return entries.stream().mapToLong(Entry::rows).sum();
    }

    /** Rows a run would remove from {@code table} in {@code status} (0 when none). */
    public long rows(RetentionTable table, String status) {
        return entries.stream().filter(e -> e.table() == table && e.status().equals(status)).mapToLong(Entry::rows).sum();
    }
}
