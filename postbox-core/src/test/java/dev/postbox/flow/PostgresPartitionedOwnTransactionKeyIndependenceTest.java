package dev.postbox.flow;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** Postbox's own transactions on the time-partitioned outbox, whose primary key is (id, partition_time). */
@PartitionedOutbox
class PostgresPartitionedOwnTransactionKeyIndependenceTest extends OwnTransactionKeyIndependenceContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
