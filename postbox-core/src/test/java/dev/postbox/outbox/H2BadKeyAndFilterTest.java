package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class H2BadKeyAndFilterTest extends BadKeyAndFilterContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
