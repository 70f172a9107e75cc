package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

class MariaDbRetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
