package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class H2WriterOrderTest extends WriterOrderContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
