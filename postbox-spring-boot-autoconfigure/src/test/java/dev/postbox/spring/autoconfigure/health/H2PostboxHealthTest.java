package dev.postbox.spring.autoconfigure.health;

import dev.postbox.testing.TestDatabase;

class H2PostboxHealthTest extends PostboxHealthContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.h2();
    }
}
