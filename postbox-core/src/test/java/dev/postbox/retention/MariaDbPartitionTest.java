package dev.postbox.retention;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;
import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MariaDbPartitionTest extends PartitionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    /** The outbox is empty here: it is partitioned anew, which on an empty table only rewrites the catalog. */
    @Override
    protected void resetPartitions(Connection c, String table, List<PartitionOps.Range> ranges) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String left; (left = ops.pendingDetach(c, table, Duration.ofSeconds(5))) != null; ) {
                st.execute("DROP TABLE " + left);
            }
            StringBuilder clauses = new StringBuilder();
            for (PartitionOps.Range r : ranges) {
                clauses.append(clauses.isEmpty() ? "" : ", ").append(MySqlPartitions.partitionClause(r));
            }
            st.execute("ALTER TABLE " + table + " PARTITION BY RANGE COLUMNS (partition_time) (" + clauses + ")");
            String keys = PartitionOps.keyTable(table);
            for (String left; (left = ops.pendingDetach(c, keys, Duration.ofSeconds(5))) != null; ) {
                st.execute("DROP TABLE " + left);
            }
            StringBuilder keyClauses = new StringBuilder();
            for (PartitionOps.Range r : PartitionOps.keyRanges(table, ranges, GENERATION)) {
                keyClauses.append(keyClauses.isEmpty() ? "" : ", ").append(MySqlPartitions.partitionClause(r));
            }
            st.execute("ALTER TABLE " + keys + " PARTITION BY RANGE COLUMNS (bucket) (" + keyClauses + ")");
        }
        assertThat(ops.partitions(c, table)).containsExactlyElementsOf(ranges);
        assertThat(ops.partitions(c, PartitionOps.keyTable(table))).containsExactlyElementsOf(PartitionOps.keyRanges(table, ranges, GENERATION));
    }

    @Override
    protected void place(Connection c, String eventNo, Instant partitionTime, OutboxStatus status, Instant at)
            throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SET " + MySqlPartitions.MOVE_VARIABLE + " = 1");
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + postbox.tables().outbox() + " SET partition_time = ?,"
                + " publish_status = ?, create_time = ?, update_time = ? WHERE event_no = ?")) {
            postbox.dialect().bindTime(ps, 1, partitionTime);
            ps.setInt(2, status.code());
            postbox.dialect().bindTime(ps, 3, at);
            postbox.dialect().bindTime(ps, 4, at);
            ps.setString(5, eventNo);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        } finally {
            try (Statement st = c.createStatement()) {
                st.execute("SET " + MySqlPartitions.MOVE_VARIABLE + " = NULL");
            }
        }
    }

    @Override
    protected String plainPartitionUpdate(String table) {
        return "UPDATE " + table + " SET partition_time = partition_time - INTERVAL 1 DAY WHERE event_no = ?";
    }

    @Override
    protected String lockThroughPartitionSql(String table, String partition) {
        return "SELECT id FROM " + table + " PARTITION (" + partition + ") WHERE event_no = ? FOR UPDATE";
    }

    @Override
    protected void analyze(String table) throws SQLException {
        exec("ANALYZE TABLE " + table);
    }

    /**
     * InnoDB appends the primary key (id) to every secondary index of the plain outbox; the partitioned variant
     * writes it out (the partition handler would not order by it otherwise), so the plain table's non-unique
     * indexes are reported with it.
     */
    @Override
    protected List<String> indexColumns(String table) throws SQLException {
        Map<String, List<String>> byIndex = new LinkedHashMap<>();
        boolean partitioned;
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT INDEX_NAME, COLUMN_NAME,"
                + " NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
                + " AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME, SEQ_IN_INDEX")) {
            partitioned = ops.partitioned(c, table);
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<String> columns = byIndex.computeIfAbsent(rs.getString(1), k -> new ArrayList<>());
                    columns.add(rs.getString(2));
                    if (rs.getInt(3) == 0) {
                        columns.add(0, "unique");
                    }
                }
            }
        }
        return byIndex.values().stream().map(columns -> {
            boolean unique = columns.remove("unique");
            if (!partitioned && !unique && !columns.contains("id")) {
                columns.add("id");
            }
            return "(" + String.join(", ", columns) + ")";
        }).toList();
    }

    /**
     * MariaDB's DDL is not transactional: a conversion that died half-way leaves the table it was building, the key
     * table and its triggers, or the old outbox under its temporary name; running it again finishes it, and rows a
     * writer put into the old outbox meanwhile are never dropped with it.
     */
    @Test
    void aConversionThatDiedHalfWayIsRunAgainAndNeverDropsARow() throws Exception {
        Postbox plain = newPostbox(b -> b.tablePrefix("half_"));
        plain.schema().install();
        String t = plain.tables().outbox();
        exec("CREATE TABLE " + t + "_partitioned LIKE " + t);
        exec("CREATE TRIGGER " + t + "_key_insert BEFORE INSERT ON " + t + "_partitioned FOR EACH ROW SET @x = 1");
        exec("CREATE TABLE " + t + "_key (event_no VARCHAR(64) NOT NULL, bucket DATETIME(3) NOT NULL)");
        exec("INSERT INTO " + t + "_key VALUES ('LEFT-OVER', UTC_TIMESTAMP(3))");
        exec("CREATE TABLE " + t + "_unpartitioned LIKE " + t);
        inTx(c -> plain.outbox().write(c, OutboxEvent.builder().eventNo("LATE-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build()));
        exec("INSERT INTO " + t + "_unpartitioned SELECT * FROM " + t);
        exec("DELETE FROM " + t);

        assertThatThrownBy(() -> plain.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(2)))
                .hasMessageContaining(t + "_unpartitioned holds rows");
        assertThat(count(t + "_unpartitioned")).as("the rows are kept").isEqualTo(1);
        exec("INSERT INTO " + t + " SELECT * FROM " + t + "_unpartitioned");
        exec("DELETE FROM " + t + "_unpartitioned");
        assertThatThrownBy(() -> plain.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(2)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox"));
        exec("DELETE FROM " + t);

        plain.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(2));
        assertThat(plain.outboxPartitions().partitioned()).isTrue();
        assertThat(count(t + "_key")).as("the left-over key table was replaced").isZero();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'half\\_%'")) {
            List<String> tables = new ArrayList<>();
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
            assertThat(tables).as("nothing half-built left").doesNotContain(t + "_partitioned", t + "_unpartitioned");
        }
        assertThat(inTx(c -> plain.outbox().write(c, OutboxEvent.builder().eventNo("LATE-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build())).inserted()).isTrue();
        assertThat(inTx(c -> plain.outbox().write(c, OutboxEvent.builder().eventNo("LATE-1").aggregate("ORDER", "1")
                .eventType("ORDER_CHANGED").channel("MQ").topic("orders").payload("{}").build())).duplicate()).isTrue();
    }

    /**
     * Retention merges a run of empty due partitions into one before dropping it (one metadata lock instead of one per
     * partition); the merge keeps a row that came into one of them after they were found empty.
     */
    @Test
    void aMergeOfEmptyPartitionsKeepsARowThatCameMeanwhile() throws Exception {
        row("LATE", "1", -3, OutboxStatus.PENDING);
        Map<String, Map<String, String>> before = rows();
        String table = postbox.tables().outbox();
        try (Connection c = ds.getConnection()) {
            List<PartitionOps.Range> ranges = ops.partitions(c, table);
            assertThat(ops.merges()).isTrue();
            assertThat(ops.empty(c, table, ranges.get(0))).isTrue();
            assertThat(ops.empty(c, table, ranges.get(1))).isFalse();
            ops.mergeEmpty(c, table, ranges.subList(0, 3), Duration.ofSeconds(5));
            List<PartitionOps.Range> after = ops.partitions(c, table);
            assertThat(after.get(0)).isEqualTo(new PartitionOps.Range(ranges.get(0).name(), ranges.get(0).from(),
                    ranges.get(2).to()));
            assertThat(after.subList(1, after.size())).isEqualTo(ranges.subList(3, ranges.size()));
        }
        assertThat(rows()).isEqualTo(before);
        assertThat(partitionTime("LATE")).isEqualTo(day(-3));
    }
}
