package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class H2MonitoringTest extends MonitoringContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
