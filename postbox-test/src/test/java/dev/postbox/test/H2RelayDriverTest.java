package dev.postbox.test;

import dev.postbox.testing.TestDatabase;

class H2RelayDriverTest extends RelayDriverContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
