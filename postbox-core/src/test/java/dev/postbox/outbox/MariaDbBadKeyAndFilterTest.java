package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class MariaDbBadKeyAndFilterTest extends BadKeyAndFilterContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
