package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

class MariaDbLiquibaseMigrationsTest extends LiquibaseMigrationsContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
