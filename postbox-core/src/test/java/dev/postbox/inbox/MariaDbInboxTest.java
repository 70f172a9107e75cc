package dev.postbox.inbox;

import dev.postbox.testing.TestDatabase;

class MariaDbInboxTest extends InboxContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
