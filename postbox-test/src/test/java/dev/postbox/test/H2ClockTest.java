package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class H2ClockTest extends ClockContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
