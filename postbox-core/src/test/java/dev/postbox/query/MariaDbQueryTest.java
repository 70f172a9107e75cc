package dev.postbox.query;

import dev.postbox.testing.TestDatabase;

class MariaDbQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
