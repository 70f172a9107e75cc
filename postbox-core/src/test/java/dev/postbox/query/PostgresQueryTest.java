package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class PostgresQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
