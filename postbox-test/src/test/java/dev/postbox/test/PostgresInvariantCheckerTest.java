package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class PostgresInvariantCheckerTest extends InvariantCheckerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
