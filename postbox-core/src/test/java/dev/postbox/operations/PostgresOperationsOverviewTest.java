package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class PostgresOperationsOverviewTest extends OperationsOverviewContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
