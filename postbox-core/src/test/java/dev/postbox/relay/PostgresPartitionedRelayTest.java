package dev.postbox.relay;

import dev.postbox.testing.PartitionedOutbox;
import dev.postbox.testing.TestDatabase;

/** The relay contract on the time-partitioned outbox (retention's partitions strategy): every promise holds there too. */
@PartitionedOutbox
class PostgresPartitionedRelayTest extends RelayContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
