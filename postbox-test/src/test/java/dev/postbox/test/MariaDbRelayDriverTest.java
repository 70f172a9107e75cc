package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class MariaDbRelayDriverTest extends RelayDriverContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
