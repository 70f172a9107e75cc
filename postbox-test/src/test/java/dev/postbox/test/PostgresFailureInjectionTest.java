package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class PostgresFailureInjectionTest extends FailureInjectionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
