package dev.postbox.internal;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.common.ValidationException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Retention cleanup: deletes the rows of a table whose time column is older than a cutoff, at most
 * {@code batchSize} rows per statement and transaction, until a statement deletes fewer. Short
 * transactions keep locks and undo small however much history there is.
 */
public final class BatchDelete {

    /** Largest batch accepted: bigger deletes hold locks long enough to hurt writers. */
    public static final int MAX_BATCH_SIZE = 100_000;

    private final Settings settings;
    private final String table;
    private final String sql;

    /** Deletes rows of {@code table} whose {@code timeColumn} is before the cutoff, oldest first. */
    public BatchDelete(Settings settings, String table, String timeColumn) {
        this.settings = settings;
        this.table = table;
        this.sql = settings.dialect().deleteBatch(table, "%s < ?".formatted(timeColumn), timeColumn);
    }

    /**
     * Deletes every row older than {@code olderThan} (measured from the Postbox clock) in batches of
     * {@code batchSize}, each committed on its own; returns how many rows were deleted.
     */
    public long run(Duration olderThan, int batchSize) {
        if (olderThan == null || olderThan.isNegative()) {
            throw new ValidationException("olderThan", "must be zero or a positive duration (was " + olderThan + ")");
        }
        Check.range("batchSize", batchSize, 1, MAX_BATCH_SIZE);
        Instant cutoff = Instants.minus(settings.now(), olderThan);
        DataSource ds = settings.dataSource();
        long total = 0;
        try (Connection c = ds.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int deleted;
                do {
                    settings.dialect().bindTime(ps, 1, cutoff);
                    ps.setInt(2, batchSize);
                    deleted = ps.executeUpdate();
                    total += deleted;
                } while (deleted == batchSize);
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new PostboxSqlException("cleanup of " + table + " before " + cutoff + " (deleted " + total + " so far)", e);
        }
        return total;
    }
}
