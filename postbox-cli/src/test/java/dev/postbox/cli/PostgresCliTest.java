package dev.postbox.cli;

import dev.postbox.testing.TestDatabase;

class PostgresCliTest extends CliContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
