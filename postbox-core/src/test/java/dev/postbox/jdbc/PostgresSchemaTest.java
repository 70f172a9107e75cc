package dev.postbox.jdbc;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresSchemaTest extends SchemaContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    /** A sequence cache above 1 lets a later session hand out a lower id than an earlier one did: no longer insert order. */
    @Test
    void everyIdSequenceCachesOneValue() throws Exception {
        for (String table : new String[] {postbox.tables().outbox(), postbox.tables().message(), postbox.tables().consumeLog(),
                postbox.tables().compensationLog(), postbox.tables().adminLog()}) {
            assertThat(queryLong("SELECT seqcache FROM pg_sequence WHERE seqrelid = pg_get_serial_sequence(?, 'id')::regclass",
                    table)).as(table).isEqualTo(1);
        }
    }
}
