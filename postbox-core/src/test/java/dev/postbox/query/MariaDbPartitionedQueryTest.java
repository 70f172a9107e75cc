package dev.postbox.query;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** QueryContract on the time-partitioned outbox (retention's partitions strategy). */
class MariaDbPartitionedQueryTest extends QueryContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @BeforeAll
    void partitioned() {
        postbox.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(2));
        assertThat(postbox.outboxPartitions().partitioned()).isTrue();
    }

    /** The contract empties the outbox between tests; the event_nos it held stay in the key table, so empty it too. */
    @BeforeEach
    void forgetKeys() throws java.sql.SQLException {
        exec("DELETE FROM " + postbox.tables().outbox() + "_key");
    }
}
