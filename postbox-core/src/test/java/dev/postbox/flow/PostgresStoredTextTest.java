package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class PostgresStoredTextTest extends StoredTextContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
