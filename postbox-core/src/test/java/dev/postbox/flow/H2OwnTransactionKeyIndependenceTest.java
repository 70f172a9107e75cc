package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class H2OwnTransactionKeyIndependenceTest extends OwnTransactionKeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
