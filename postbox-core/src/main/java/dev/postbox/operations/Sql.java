package dev.postbox.operations;

import dev.postbox.common.PostboxSqlException;
import dev.postbox.internal.Settings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The few JDBC steps the console's reads repeat: bind, run, map every row. */
final class Sql {

    /** Maps the current row. */
    @FunctionalInterface
    interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** Work on one connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private Sql() {
    }

    /** Runs {@code work} on a connection of the application's data source (reads, auto-commit as it comes). */
    static <T> T read(Settings s, String what, Work<T> work) {
        try (Connection c = s.dataSource().getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new PostboxSqlException(what, e);
        }
    }

    /** Every row of {@code sql} with {@code params} bound (String, Long, Integer, Instant, Boolean). */
    static <T> List<T> list(Connection c, Settings s, String sql, List<?> params, Row<T> row) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, s, params);
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(row.map(rs));
                }
            }
            return out;
        }
    }

    /** The first row of {@code sql}, or null. */
    static <T> T first(Connection c, Settings s, String sql, List<?> params, Row<T> row) throws SQLException {
        List<T> rows = list(c, s, sql, params, row);
        return rows.isEmpty() ? null : rows.get(0);
    }

    static void bind(PreparedStatement ps, Settings s, List<?> params) throws SQLException {
        dev.postbox.internal.Binds.bind(ps, s.dialect(), params);
    }

    /** {@code n} parameters of an IN list: {@code ?, ?, ?}. */
    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** Codes as the items of an IN list, in order. */
    static String codes(java.util.Collection<Integer> codes) {
        return String.join(", ", codes.stream().sorted().map(String::valueOf).toList());
    }
}
