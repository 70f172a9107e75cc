package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class MariaDbOperationsHistoryTest extends OperationsHistoryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
