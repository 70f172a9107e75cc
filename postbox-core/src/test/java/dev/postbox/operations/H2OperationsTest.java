package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class H2OperationsTest extends OperationsContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
