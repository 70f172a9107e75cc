package dev.postbox.spring.autoconfigure.console;

import dev.postbox.testing.TestDatabase;

class PostgresConsoleAutoConfigurationTest extends ConsoleAutoConfigurationContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.postgres(null);
    }
}
