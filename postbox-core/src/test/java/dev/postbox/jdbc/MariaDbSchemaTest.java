package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;

class MariaDbSchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
