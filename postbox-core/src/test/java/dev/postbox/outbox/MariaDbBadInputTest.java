package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class MariaDbBadInputTest extends BadInputContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
