package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class PostgresKeyIndependenceTest extends KeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
