package dev.postbox.operations;

import dev.postbox.testing.TestDatabase;

class PostgresOperationsTest extends OperationsContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
