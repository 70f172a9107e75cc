package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class MariaDbMonitoringTest extends MonitoringContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
