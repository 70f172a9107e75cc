package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;

class PostgresSchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
