package dev.postbox.query;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** QueryContract on the time-partitioned outbox (retention's partitions strategy). */
@PartitionedOutbox
class MariaDbPartitionedQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
