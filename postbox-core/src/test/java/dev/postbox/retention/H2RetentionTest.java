package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

class H2RetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
