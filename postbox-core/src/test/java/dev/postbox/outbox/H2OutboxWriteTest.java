package dev.postbox.outbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxWriteTest extends OutboxWriteContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected boolean payloadStoredVerbatim() {
        return false;
    }
}
