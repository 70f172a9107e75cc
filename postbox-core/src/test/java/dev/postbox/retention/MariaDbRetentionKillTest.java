package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

class MariaDbRetentionKillTest extends RetentionKillContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
