package dev.postbox.retention;

import dev.postbox.jdbc.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** JDBC helpers the databases' {@link PartitionOps} share. */
final class PartitionSql {

    private PartitionSql() {
    }

    /**
     * The rows of {@code sql}, which selects id, publish_status, update_time, aggregate_type, aggregate_id and
     * takes the limit as its one parameter.
     */
    static List<PartitionOps.Row> rows(Connection c, Dialect dialect, String sql, int limit) throws SQLException {
        List<PartitionOps.Row> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new PartitionOps.Row(rs.getLong(1), rs.getInt(2), dialect.readTime(rs, "update_time"),
                            rs.getString(4), rs.getString(5)));
                }
            }
        }
        return out;
    }

    /** The column names of {@code table} in order, lower case, {@code left} left out (null: none). */
    static List<String> columnsBut(Connection c, String table, String left) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                String name = md.getColumnName(i).toLowerCase(Locale.ROOT);
                if (!name.equals(left)) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /** The first column of the first row of {@code sql}, a number. */
    static long longOf(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
