package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class PostgresRelayRobustnessTest extends RelayRobustnessContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
