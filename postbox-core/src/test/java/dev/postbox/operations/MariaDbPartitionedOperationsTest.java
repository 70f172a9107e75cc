package dev.postbox.operations;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** OperationsContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class MariaDbPartitionedOperationsTest extends OperationsContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
