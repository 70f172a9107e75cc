package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class H2ServerLimitTest extends ServerLimitContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
