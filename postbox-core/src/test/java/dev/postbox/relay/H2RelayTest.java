package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class H2RelayTest extends RelayContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
