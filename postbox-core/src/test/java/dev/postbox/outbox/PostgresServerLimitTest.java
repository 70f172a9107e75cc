package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class PostgresServerLimitTest extends ServerLimitContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
