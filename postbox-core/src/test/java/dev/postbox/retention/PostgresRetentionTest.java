package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresRetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected void assertReadsByPrimaryKey(String plan) {
        assertThat(plan).as(plan).contains("_pk").doesNotContain("Seq Scan");
    }
}
