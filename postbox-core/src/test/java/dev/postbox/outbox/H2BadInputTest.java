package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class H2BadInputTest extends BadInputContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
