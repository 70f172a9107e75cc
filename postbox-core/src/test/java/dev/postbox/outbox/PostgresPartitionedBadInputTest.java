package dev.postbox.outbox;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** BadInputContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class PostgresPartitionedBadInputTest extends BadInputContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
