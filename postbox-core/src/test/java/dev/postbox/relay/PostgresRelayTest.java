package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class PostgresRelayTest extends RelayContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
