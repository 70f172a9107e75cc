package dev.postbox.compensation;

import dev.postbox.testing.TestDatabase;

class MariaDbCompensationTest extends CompensationContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
