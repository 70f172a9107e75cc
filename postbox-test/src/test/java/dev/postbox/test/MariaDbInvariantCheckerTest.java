package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class MariaDbInvariantCheckerTest extends InvariantCheckerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
