package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class H2FailureInjectionTest extends FailureInjectionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
