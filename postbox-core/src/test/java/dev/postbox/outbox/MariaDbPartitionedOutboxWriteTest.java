package dev.postbox.outbox;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** OutboxWriteContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class MariaDbPartitionedOutboxWriteTest extends OutboxWriteContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
