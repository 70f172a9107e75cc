package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class PostgresOwnTransactionKeyIndependenceTest extends OwnTransactionKeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
