package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class PostgresFlywayMigrationsTest extends FlywayMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
