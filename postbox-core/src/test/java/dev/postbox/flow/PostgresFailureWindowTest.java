package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class PostgresFailureWindowTest extends FailureWindowContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
