package dev.postbox.message;

import dev.postbox.testing.TestDatabase;

class MariaDbMessageWorkerTest extends MessageWorkerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
