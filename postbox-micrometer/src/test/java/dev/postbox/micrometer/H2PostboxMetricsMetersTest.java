package dev.postbox.micrometer;

import dev.postbox.testing.TestDatabase;

class H2PostboxMetricsMetersTest extends PostboxMetricsMetersContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
