package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.testing.TestDatabase;

class PostgresPostboxMetricsTest extends PostboxMetricsContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.postgres(null);
    }
}
