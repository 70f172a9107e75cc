package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class MariaDbOperationsOverviewTest extends OperationsOverviewContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
