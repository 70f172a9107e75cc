package dev.postbox.spring.autoconfigure.console;

import dev.postbox.testing.TestDatabase;

class H2ConsoleAutoConfigurationTest extends ConsoleAutoConfigurationContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.h2();
    }
}
