package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class H2LiquibaseMigrationsTest extends LiquibaseMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
