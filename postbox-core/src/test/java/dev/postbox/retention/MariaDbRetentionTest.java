package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbRetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }

    @Override
    protected void assertReadsByPrimaryKey(String plan) {
        assertThat(plan).as(plan).contains("key=PRIMARY").doesNotContain("type=ALL").contains("type=range");
    }
}
