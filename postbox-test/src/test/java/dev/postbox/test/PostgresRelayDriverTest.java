package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class PostgresRelayDriverTest extends RelayDriverContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
