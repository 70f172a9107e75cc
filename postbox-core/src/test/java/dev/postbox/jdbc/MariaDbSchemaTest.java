package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

class MariaDbSchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected List<String> guardIndexColumns(String outboxTable) throws Exception {
        List<String> columns = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT column_name FROM information_schema.STATISTICS WHERE table_schema = DATABASE()
                 AND table_name = ? AND index_name = 'idx_aggregate_status' ORDER BY seq_in_index""")) {
            ps.setString(1, outboxTable);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1).toLowerCase(Locale.ROOT));
                }
            }
        }
        return columns;
    }
}
