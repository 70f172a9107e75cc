package dev.postbox.relay;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** The attempt history on the time-partitioned outbox: written alike, and swept by the partitions strategy too. */
@PartitionedOutbox
class PostgresPartitionedOperationsHistoryTest extends OperationsHistoryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }

    @Override
    protected boolean claimNamesTheHolder() {
        return false;
    }
}
