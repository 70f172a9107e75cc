package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class MariaDbRelayRobustnessTest extends RelayRobustnessContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
