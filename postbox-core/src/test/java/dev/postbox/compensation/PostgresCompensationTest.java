package dev.postbox.compensation;

import dev.postbox.testing.TestDatabase;

class PostgresCompensationTest extends CompensationContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
