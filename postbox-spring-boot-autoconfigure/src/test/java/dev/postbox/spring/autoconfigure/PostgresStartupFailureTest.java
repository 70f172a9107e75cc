package dev.postbox.spring.autoconfigure;

import dev.postbox.testing.TestDatabase;

import java.util.List;

class PostgresStartupFailureTest extends StartupFailureContract {

    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }

    @Override
    protected List<String> noInstallProperties() {
        return List.of("spring.flyway.enabled=false", "spring.liquibase.enabled=false");
    }

    @Override
    protected String noInstallMode() {
        return "embedded";
    }
}
