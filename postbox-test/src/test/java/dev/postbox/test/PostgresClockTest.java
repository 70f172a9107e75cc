package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class PostgresClockTest extends ClockContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
