package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

class PostgresRetentionKillTest extends RetentionKillContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
