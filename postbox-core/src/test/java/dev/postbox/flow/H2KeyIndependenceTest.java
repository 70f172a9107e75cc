package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class H2KeyIndependenceTest extends KeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected boolean detectsDeadlocks() {
        return false;
    }
}
