package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class PostgresMonitoringTest extends MonitoringContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
