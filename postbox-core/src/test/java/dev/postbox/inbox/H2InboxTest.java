package dev.postbox.inbox;

import dev.postbox.testing.TestDatabase;

class H2InboxTest extends InboxContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
