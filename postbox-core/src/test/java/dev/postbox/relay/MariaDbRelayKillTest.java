package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class MariaDbRelayKillTest extends RelayKillContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
