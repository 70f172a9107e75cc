package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class MariaDbFailureInjectionTest extends FailureInjectionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
