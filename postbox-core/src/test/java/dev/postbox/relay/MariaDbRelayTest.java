package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class MariaDbRelayTest extends RelayContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
