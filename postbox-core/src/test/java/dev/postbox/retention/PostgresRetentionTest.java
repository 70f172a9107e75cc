package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

class PostgresRetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
