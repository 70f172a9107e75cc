package dev.postbox.cli;

import dev.postbox.testing.TestDatabase;

class MariaDbCliTest extends CliContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
