package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;
import dev.postbox.testing.DatabaseContract;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReadCommitted} on MariaDB: a transaction of Postbox's own on a connection at REPEATABLE READ runs at READ
 * COMMITTED, and the connection goes back at REPEATABLE READ; a connection at READ COMMITTED is handed out untouched;
 * databases that lock no gaps get their data source back as it is.
 */
class MariaDbReadCommittedTest extends DatabaseContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    /** One physical connection, handed out again and again (its close is ignored), as a pool of one would. */
    private static DataSource one(Connection physical) {
        Connection kept = (Connection) Proxy.newProxyInstance(MariaDbReadCommittedTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> method.getName().equals("close")
                        ? null : method.invoke(physical, args));
        return (DataSource) Proxy.newProxyInstance(MariaDbReadCommittedTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> method.getName().equals("getConnection")
                        ? kept : method.invoke(physical, args));
    }

    private static String serverIsolation(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@tx_isolation")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    final void aTransactionOnARepeatableReadConnectionRunsAtReadCommittedAndGivesTheLevelBack() throws Exception {
        try (Connection physical = ds.getConnection()) {
            physical.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            DataSource seen = ReadCommitted.of(Dialect.MYSQL, one(physical));
            String inside = Transactions.inTransaction(seen, "test", MariaDbReadCommittedTest::serverIsolation);
            assertThat(inside).isEqualTo("READ-COMMITTED");
            assertThat(serverIsolation(physical)).as("given back").isEqualTo("REPEATABLE-READ");
            assertThat(physical.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    @Test
    final void aReadCommittedConnectionIsHandedOutAsItIs() throws Exception {
        try (Connection physical = ds.getConnection()) {
            physical.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            DataSource pool = one(physical);
            try (Connection c = ReadCommitted.of(Dialect.MYSQL, pool).getConnection()) {
                assertThat(c).isSameAs(pool.getConnection());
            }
        }
    }

    @Test
    final void databasesThatLockNoGapsKeepTheirDataSource() {
        assertThat(ReadCommitted.of(Dialect.POSTGRESQL, ds)).isSameAs(ds);
        assertThat(ReadCommitted.of(Dialect.H2, ds)).isSameAs(ds);
        DataSource seen = ReadCommitted.of(Dialect.MYSQL, ds);
        assertThat(seen).isNotSameAs(ds);
        assertThat(ReadCommitted.of(Dialect.MYSQL, seen)).as("not wrapped twice").isSameAs(seen);
    }
}
