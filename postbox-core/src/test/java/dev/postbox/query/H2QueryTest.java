package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class H2QueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
