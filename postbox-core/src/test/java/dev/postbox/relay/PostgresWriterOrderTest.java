package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class PostgresWriterOrderTest extends WriterOrderContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
