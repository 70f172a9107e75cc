package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class PostgresMessageWorkerTest extends MessageWorkerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
