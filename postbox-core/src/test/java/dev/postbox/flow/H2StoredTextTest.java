package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class H2StoredTextTest extends StoredTextContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
