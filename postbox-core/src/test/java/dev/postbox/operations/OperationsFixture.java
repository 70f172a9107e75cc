package dev.postbox.operations;

import dev.postbox.Postbox;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/** What the operations suites share: emptying the tables {@code DatabaseContract} leaves, rows helpers write. */
final class OperationsFixture {

    private OperationsFixture() {
    }

    /** Empties the tables of schema version 8, the job leases and the archives (one transaction). */
    static void emptyOperationsTables(DataSource ds, Postbox postbox) throws SQLException {
        var t = postbox.tables();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (String table : new String[] {t.eventAttempt(), t.adminAction(), t.relayInstance(), t.relayStats(),
                    t.jobLease(), t.outboxArchive(), t.messageArchive()}) {
                st.execute("DELETE FROM " + table);
            }
            c.commit();
        }
    }

    /** An attempt row as a relay (or worker) of schema version 8 writes it. */
    static void attempt(DataSource ds, Postbox postbox, String kind, String eventNo, int attempt, String outcome,
                        String error, String instance, Instant at) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO "
                + postbox.tables().eventAttempt() + " (event_kind, event_id, event_no, attempt, outcome, error, instance,"
                + " create_time) VALUES (?, 0, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, kind);
            ps.setString(2, eventNo);
            ps.setInt(3, attempt);
            ps.setString(4, outcome);
            ps.setString(5, error);
            ps.setString(6, instance);
            postbox.dialect().bindTime(ps, 7, at);
            ps.executeUpdate();
        }
    }
}
