package dev.postbox.relay;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** The attempt history on the time-partitioned outbox: written alike, and swept by the partitions strategy too. */
@PartitionedOutbox
class MariaDbPartitionedOperationsHistoryTest extends OperationsHistoryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }
}
