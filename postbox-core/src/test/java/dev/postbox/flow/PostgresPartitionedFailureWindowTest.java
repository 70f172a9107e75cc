package dev.postbox.flow;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** FailureWindowContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class PostgresPartitionedFailureWindowTest extends FailureWindowContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
