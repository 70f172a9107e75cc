package dev.postbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the chaos bench reads from the run's database, each on a new connection (the database may just
 * have crashed): status counts for progress and the drain, the leases a killed relay left, and at the
 * end the committed rows and the business rows' seqs for the checker.
 */
final class ChaosQueries {

    private final BenchDatabase db;
    private final String outbox;

    ChaosQueries(BenchDatabase db, String outbox) {
        this.db = db;
        this.outbox = outbox;
    }

    /** Rows per publish_status code. */
    Map<Integer, Long> statusCounts() throws SQLException {
        Map<Integer, Long> out = new HashMap<>();
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT publish_status, COUNT(*) FROM " + outbox + " GROUP BY publish_status")) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return out;
    }

    /** The events {@code instance} holds leased (PUBLISHING, locked_by it), or null when the database is down. */
    List<String> leasedBy(String instance) {
        try (Connection c = db.connect();
             PreparedStatement ps = c.prepareStatement("SELECT event_no FROM " + outbox
                     + " WHERE publish_status = 1 AND locked_by = ?")) {
            ps.setString(1, instance);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        } catch (SQLException e) {
            return null;
        }
    }

    /** Every outbox row by event_no. */
    Map<String, ChaosHistory.Row> committedRows() throws SQLException {
        Map<String, ChaosHistory.Row> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT event_no, event_payload, publish_status, retry_count FROM " + outbox)) {
            while (rs.next()) {
                rows.put(rs.getString(1), new ChaosHistory.Row(ChaosPayload.parse(rs.getString(2)), rs.getInt(3), rs.getInt(4)));
            }
        }
        return rows;
    }

    /** The seq of every aggregate's business row. */
    Map<String, Long> businessSeqs() throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, seq FROM " + ChaosProducer.AGGREGATES)) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }
}
