package dev.postbox.inbox;

import dev.postbox.testing.TestDatabase;

class PostgresInboxTest extends InboxContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
