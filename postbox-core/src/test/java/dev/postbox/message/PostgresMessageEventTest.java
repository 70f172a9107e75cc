package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class PostgresMessageEventTest extends MessageEventContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
