package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class MariaDbMessageEventTest extends MessageEventContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
