package dev.postbox.cli;

import dev.postbox.testing.TestDatabase;

class H2CliTest extends CliContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
