package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

class H2SchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected List<String> guardIndexColumns(String outboxTable) throws Exception {
        List<String> columns = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_NAME = ? AND INDEX_NAME = ?
                 ORDER BY ORDINAL_POSITION""")) {
            String table = outboxTable.toUpperCase(Locale.ROOT);
            ps.setString(1, table);
            ps.setString(2, table + "_IDX_AGGREGATE_STATUS");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1).toLowerCase(Locale.ROOT));
                }
            }
        }
        return columns;
    }
}
