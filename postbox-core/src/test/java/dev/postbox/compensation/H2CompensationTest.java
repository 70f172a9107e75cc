package dev.postbox.compensation;

import dev.postbox.testing.TestDatabase;

class H2CompensationTest extends CompensationContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
