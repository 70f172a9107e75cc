package dev.postbox.console;

import dev.postbox.testing.TestDatabase;

class MariaDbConsoleApiTest extends ConsoleApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
