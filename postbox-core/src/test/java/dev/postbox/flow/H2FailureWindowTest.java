package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class H2FailureWindowTest extends FailureWindowContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
