package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class H2RelayRobustnessTest extends RelayRobustnessContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
