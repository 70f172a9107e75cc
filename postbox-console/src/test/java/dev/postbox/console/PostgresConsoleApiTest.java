package dev.postbox.console;

import dev.postbox.testing.TestDatabase;

class PostgresConsoleApiTest extends ConsoleApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
