package dev.postbox.retention;

import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresPartitionTest extends PartitionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected void resetPartitions(Connection c, String table, List<PartitionOps.Range> ranges) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String left; (left = ops.pendingDetach(c, table, Duration.ofSeconds(5))) != null; ) {
                st.execute("DROP TABLE " + left);
            }
            String keys = PartitionOps.keyTable(table);
            for (String left; (left = ops.pendingDetach(c, keys, Duration.ofSeconds(5))) != null; ) {
                st.execute("DROP TABLE " + left);
            }
            c.setAutoCommit(false);
            for (PartitionOps.Range r : ops.partitions(c, table)) {
                st.execute("DROP TABLE " + r.name());
            }
            for (PartitionOps.Range r : ops.partitions(c, keys)) {
                st.execute("DROP TABLE " + r.name());
            }
            for (PartitionOps.Range r : ranges) {
                ops.create(c, table, r, Duration.ofSeconds(5));
            }
            for (PartitionOps.Range r : PartitionOps.keyRanges(table, ranges, GENERATION)) {
                ops.create(c, keys, r, Duration.ofSeconds(5));
            }
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
        assertThat(ops.partitions(c, table)).containsExactlyElementsOf(ranges);
        assertThat(ops.partitions(c, PartitionOps.keyTable(table))).containsExactlyElementsOf(PartitionOps.keyRanges(table, ranges, GENERATION));
    }

    @Override
    protected void place(Connection c, String eventNo, Instant partitionTime, OutboxStatus status, Instant at)
            throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT set_config('" + PostgresPartitions.MOVE_SETTING + "', 'on', true)");
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + postbox.tables().outbox() + " SET partition_time = ?,"
                + " publish_status = ?, create_time = ?, update_time = ? WHERE event_no = ?")) {
            postbox.dialect().bindTime(ps, 1, partitionTime);
            ps.setInt(2, status.code());
            postbox.dialect().bindTime(ps, 3, at);
            postbox.dialect().bindTime(ps, 4, at);
            ps.setString(5, eventNo);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        try (Statement st = c.createStatement()) {
            st.execute("SELECT set_config('" + PostgresPartitions.MOVE_SETTING + "', 'off', true)");
        }
    }

    @Override
    protected List<String> indexColumns(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT regexp_replace("
                + "pg_get_indexdef(indexrelid), '^.* USING btree ', '') FROM pg_index WHERE indrelid = to_regclass(?)"
                + " AND NOT indisprimary")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
