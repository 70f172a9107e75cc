package dev.postbox.micrometer;

import dev.postbox.testing.TestDatabase;

class PostgresPostboxMetricsMetersTest extends PostboxMetricsMetersContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
