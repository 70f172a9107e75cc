package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class MariaDbOwnTransactionKeyIndependenceTest extends OwnTransactionKeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
