package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class MariaDbFailureWindowTest extends FailureWindowContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
