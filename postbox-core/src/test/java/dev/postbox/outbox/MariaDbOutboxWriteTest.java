package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxWriteTest extends OutboxWriteContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
