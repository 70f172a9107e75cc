package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class H2OperationsHistoryTest extends OperationsHistoryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
