package dev.postbox.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What the current PostgreSQL transaction has read of one table so far: index entries returned by every
 * scan of its indexes (bitmap scans included) plus rows returned by sequential scans, from
 * {@code pg_stat_get_xact_tuples_returned} of each index and {@code pg_stat_xact_user_tables}, which count the transaction's own
 * reads before they are flushed. A statement whose plan reads a candidate index in order and stops at its
 * LIMIT reads about LIMIT entries; one that filters and sorts every candidate first reads them all.
 */
public final class PgReads {

    private PgReads() {
    }

    /** Index entries plus sequentially scanned rows of {@code table} read in this transaction. */
    public static long of(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT COALESCE((SELECT SUM(pg_stat_get_xact_tuples_returned(i.indexrelid)) FROM pg_index i
                                  WHERE i.indrelid = to_regclass(?)), 0)
                     + COALESCE((SELECT seq_tup_read FROM pg_stat_xact_user_tables
                                  WHERE relid = to_regclass(?)), 0)""")) {
            ps.setString(1, table);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
