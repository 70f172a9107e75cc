package dev.postbox.retention;

import dev.postbox.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

class H2RetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected void assertReadsByPrimaryKey(String plan) {
        assertThat(plan).as(plan).containsIgnoringCase("PRIMARY_KEY").doesNotContainIgnoringCase("tableScan");
    }
}
