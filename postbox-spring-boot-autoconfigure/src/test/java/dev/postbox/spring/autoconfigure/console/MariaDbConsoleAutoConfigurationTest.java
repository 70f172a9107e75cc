package dev.postbox.spring.autoconfigure.console;

import dev.postbox.testing.TestDatabase;

class MariaDbConsoleAutoConfigurationTest extends ConsoleAutoConfigurationContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.mariadb(null);
    }
}
