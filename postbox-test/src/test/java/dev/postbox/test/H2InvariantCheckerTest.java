package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class H2InvariantCheckerTest extends InvariantCheckerContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
