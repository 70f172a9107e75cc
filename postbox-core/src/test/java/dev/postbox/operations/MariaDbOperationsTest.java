package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class MariaDbOperationsTest extends OperationsContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
