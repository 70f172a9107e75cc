package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class H2MessageEventTest extends MessageEventContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
