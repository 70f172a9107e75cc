package dev.postbox.internal.poll;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A write fenced by the version a claim produced: {@code UPDATE t SET ... WHERE id = ? AND version = ?}
 * (and any further condition), run for many rows as one JDBC batch, reporting per row whether the fence
 * still held. A job's every write bumps the version, so an unchanged version means the row is exactly as
 * this claimer left it; a claimer whose row was recovered by another (or changed by a person) no longer
 * writes it. The SET must add one to the version column itself.
 *
 * @param <T> what one row's write is made from (the claimed record, or a record of the outcome)
 */
public final class Fence<T> {

    /** Binds the SET's parameters of one write, from index 1; returns the index of the {@code id} parameter. */
    @FunctionalInterface
    public interface SetBinder<T> {
        int bind(PreparedStatement ps, T item) throws SQLException;
    }

    /** Binds the SET's parameters shared by all rows of one statement, from index 1; returns the next index. */
    @FunctionalInterface
    public interface SharedBinder {
        int bind(PreparedStatement ps) throws SQLException;
    }

    private final String table;
    private final String set;
    private final String versionColumn;
    private final String also;
    private final String sql;
    private final ToLongFunction<T> id;
    private final ToIntFunction<T> version;

    /**
     * @param table         the job's table, keyed by {@code id}, followed by the dialect's hint that names its
     *                      primary key's index where it takes one ({@code Dialect.forceIndex("PRIMARY")})
     * @param set           the SET list, bumping {@code versionColumn}
     * @param versionColumn the fence column
     * @param also          a further condition without parameters (e.g. the status a write moves from), or null
     * @param id            the row a write is for
     * @param version       the version the write expects (the one its claim, or its last fenced write, produced)
     */
    public Fence(String table, String set, String versionColumn, String also, ToLongFunction<T> id,
                 ToIntFunction<T> version) {
        this.table = table;
        this.set = set;
        this.versionColumn = versionColumn;
        this.also = also;
        this.sql = "UPDATE %s SET %s WHERE id = ? AND %s = ?".formatted(table, set, versionColumn)
                + (also == null ? "" : " AND " + also);
        this.id = Objects.requireNonNull(id, "id");
        this.version = Objects.requireNonNull(version, "version");
    }

    /**
     * Runs the write for each of {@code items} in one batch, {@code binder} binding each one's SET parameters;
     * element i of the result is the driver's count for item i: 0 if the fence no longer held (see
     * {@link #held}). Nothing is run for no items.
     */
    public int[] run(Connection c, List<T> items, SetBinder<T> binder) throws SQLException {
        if (items.isEmpty()) {
            return new int[0];
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (T item : items) {
                int i = binder.bind(ps, item);
                ps.setLong(i++, id.applyAsLong(item));
                ps.setInt(i, version.applyAsInt(item));
                ps.addBatch();
            }
            return ps.executeBatch();
        }
    }

    /**
     * Runs the write for all of {@code items} as one statement over their {@code (id, version)} pairs,
     * {@code shared} binding the SET's parameters once; returns how many rows the fence still held for.
     * Faster than {@link #run} where the database evaluates such a list well (see
     * {@code Dialect.batchedPrimaryKeyUpdates()}); it cannot say which rows were lost.
     */
    public int runTogether(Connection c, List<T> items, SharedBinder shared) throws SQLException {
        if (items.isEmpty()) {
            return 0;
        }
        String together = "UPDATE %s SET %s WHERE id IN (%s) AND (id, %s) IN (%s)".formatted(table, set,
                String.join(", ", Collections.nCopies(items.size(), "?")), versionColumn,
                String.join(", ", Collections.nCopies(items.size(), "(?, ?)"))) + (also == null ? "" : " AND " + also);
        try (PreparedStatement ps = c.prepareStatement(together)) {
            int i = shared.bind(ps);
            for (T item : items) {
                ps.setLong(i++, id.applyAsLong(item));
            }
            for (T item : items) {
                ps.setLong(i++, id.applyAsLong(item));
                ps.setInt(i++, version.applyAsInt(item));
            }
            return ps.executeUpdate();
        }
    }

    /** Whether a batch count says the write happened (1, or a driver's "succeeded, count unknown"). */
    public static boolean held(int count) {
        return count != 0;
    }

    /** The statement, for tests and logs. */
    @Override
    public String toString() {
        return sql;
    }
}
