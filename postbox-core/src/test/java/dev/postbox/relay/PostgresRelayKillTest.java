package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class PostgresRelayKillTest extends RelayKillContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
