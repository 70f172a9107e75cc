package dev.postbox.flow;

import dev.postbox.testing.TestDatabase;

class MariaDbKeyIndependenceTest extends KeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
