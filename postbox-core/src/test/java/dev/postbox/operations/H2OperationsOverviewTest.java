package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class H2OperationsOverviewTest extends OperationsOverviewContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
