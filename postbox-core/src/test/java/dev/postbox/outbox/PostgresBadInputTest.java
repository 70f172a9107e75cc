package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class PostgresBadInputTest extends BadInputContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
