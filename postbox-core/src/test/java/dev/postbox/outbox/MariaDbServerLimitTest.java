package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class MariaDbServerLimitTest extends ServerLimitContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
