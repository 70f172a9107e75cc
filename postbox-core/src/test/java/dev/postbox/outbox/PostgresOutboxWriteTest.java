package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxWriteTest extends OutboxWriteContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
