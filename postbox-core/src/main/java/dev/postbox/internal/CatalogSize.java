package dev.postbox.internal;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The catalog's estimate of one table's size ({@link Dialect#tableSizeSql()}), reading no row of it: the one read
 * behind retention's plan and the monitoring of table sizes.
 *
 * @param rows  estimated rows, or -1 where the catalog keeps no estimate
 * @param bytes heap, indexes and TOAST together, or -1 where the catalog keeps none (H2)
 */
public record CatalogSize(long rows, long bytes) {

    /** No estimate at all. */
    public static final CatalogSize NONE = new CatalogSize(-1, -1);

    /** The estimate of {@code table} on {@code c}; {@link #NONE} where the dialect's catalog keeps none. */
    public static CatalogSize read(Connection c, Dialect dialect, String table) throws SQLException {
        String sql = dialect.tableSizeSql();
        if (sql == null) {
            return NONE;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return NONE;
                }
                long bytes = rs.getLong(1);
                boolean noBytes = rs.wasNull(); // H2 estimates rows but not bytes
                long rows = rs.getLong(2);
                return new CatalogSize(rs.wasNull() ? -1 : rows, noBytes ? -1 : bytes);
            }
        }
    }
}
