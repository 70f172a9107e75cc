package dev.postbox.outbox;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** OutboxWriteContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class PostgresPartitionedOutboxWriteTest extends OutboxWriteContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
