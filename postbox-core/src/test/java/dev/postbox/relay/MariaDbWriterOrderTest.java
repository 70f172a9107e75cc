package dev.postbox.relay;

import dev.postbox.testing.TestDatabase;

class MariaDbWriterOrderTest extends WriterOrderContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
