package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class MariaDbStoredTextTest extends StoredTextContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
