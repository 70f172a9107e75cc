package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;

class H2SchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
