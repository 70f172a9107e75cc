package dev.postbox.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Seed 003's order table for compensation tests: {@code orders} with a status, a creation time (epoch
 * milliseconds, the same on every database) and {@code cancel_count}, which counts every cancellation so a
 * double compensation shows even when both set the same status.
 */
public final class Orders {

    private Orders() {
    }

    public static void createTable(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE orders (order_no VARCHAR(64) NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL,"
                    + " created_ms BIGINT NOT NULL, cancel_count INT NOT NULL)");
        }
    }

    public static void insert(Connection c, String orderNo, Instant created) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO orders (order_no, status, created_ms, cancel_count) VALUES (?, 'CREATED', ?, 0)")) {
            ps.setString(1, orderNo);
            ps.setLong(2, created.toEpochMilli());
            ps.executeUpdate();
        }
    }

    /** Seed 003's scan: orders still CREATED that were created before {@code cutoff}, oldest first. */
    public static List<String> timedOut(Connection c, Instant cutoff, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT order_no FROM orders WHERE status = 'CREATED'"
                + " AND created_ms < ? ORDER BY created_ms, order_no LIMIT ?")) {
            ps.setLong(1, cutoff.toEpochMilli());
            ps.setInt(2, limit);
            List<String> keys = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.add(rs.getString(1));
                }
            }
            return keys;
        }
    }

    /** Cancels without checking the status (so only the compensation log can prevent a second cancellation). */
    public static void cancelUnconditionally(Connection c, String orderNo) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE orders SET status = 'CANCELLED', cancel_count = cancel_count + 1 WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            ps.executeUpdate();
        }
    }
}
