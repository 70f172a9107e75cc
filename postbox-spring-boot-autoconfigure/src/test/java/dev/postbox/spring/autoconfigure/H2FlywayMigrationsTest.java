package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class H2FlywayMigrationsTest extends FlywayMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
