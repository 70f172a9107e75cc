package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class PostgresLiquibaseMigrationsTest extends LiquibaseMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
