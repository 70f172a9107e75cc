package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class MariaDbClockTest extends ClockContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
