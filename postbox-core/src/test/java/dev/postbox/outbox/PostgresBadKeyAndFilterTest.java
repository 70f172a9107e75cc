package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class PostgresBadKeyAndFilterTest extends BadKeyAndFilterContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
