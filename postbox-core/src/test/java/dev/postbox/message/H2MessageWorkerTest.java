package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class H2MessageWorkerTest extends MessageWorkerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
