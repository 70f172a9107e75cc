package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class MariaDbFlywayMigrationsTest extends FlywayMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
