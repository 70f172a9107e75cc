package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class PostgresOperationsHistoryTest extends OperationsHistoryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected boolean claimNamesTheHolder() {
        return false;
    }
}
